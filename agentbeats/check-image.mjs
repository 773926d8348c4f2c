#!/usr/bin/env node
// Checks agentbeats/Dockerfile without a Docker daemon: the packages the image installs, its health
// check, volumes and environment, and that every flag its entrypoint and command pass is one the
// built `gitgood a2a serve` takes. Usage: node agentbeats/check-image.mjs [DOCKERFILE]  (after npm run build)
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const file = process.argv[2] ?? path.join(here, "Dockerfile");
const text = readFileSync(file, "utf8").replace(/\\\n/g, " ");
const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
const problems = [];
const instruction = (name) => lines.filter((l) => l.toUpperCase().startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());
const jsonArray = (name) => {
  const last = instruction(name).at(-1);
  if (last === undefined) return null;
  try {
    return JSON.parse(last);
  } catch {
    problems.push(`${name} is not in JSON (exec) form: ${last}`);
    return null;
  }
};

const installed = new Set(instruction("RUN").flatMap((r) => /apt-get install\s+(.*?)(?:&&|$)/.exec(r)?.[1].split(/\s+/) ?? []).filter((w) => w && !w.startsWith("-")));
for (const [pkg, why] of [
  ["git", "every evaluation"],
  ["bubblewrap", "isolated test runs"],
  ["patch", "the fourth SWE apply strategy"],
  ["curl", "the health check"],
  ["python3", "SWE and commit0 test runs"],
  ["python3-venv", "test environments"],
  ["ca-certificates", "HTTPS to model endpoints"],
]) {
  if (!installed.has(pkg)) problems.push(`the image does not install ${pkg} (${why})`);
}
const health = instruction("HEALTHCHECK").at(-1) ?? "";
if (!/CMD\s+curl\b/.test(health)) problems.push("no HEALTHCHECK runs curl against the agent card");
const volumes = JSON.parse(instruction("VOLUME").at(-1) ?? "[]");
for (const v of ["/data", "/shared", "/runs"]) if (!volumes.includes(v)) problems.push(`no VOLUME ${v}`);
if (!instruction("ENV").some((e) => /GITGOOD_A2A_SHARED_DIR=\/shared\b/.test(e))) problems.push("GITGOOD_A2A_SHARED_DIR is not /shared");

const entry = jsonArray("ENTRYPOINT") ?? [];
const cmd = jsonArray("CMD") ?? [];
const serve = entry.indexOf("serve");
if (entry[serve - 1] !== "a2a" || serve < 0) problems.push(`the entrypoint does not run 'gitgood a2a serve': ${JSON.stringify(entry)}`);
const argv = [...entry.slice(serve + 1), ...cmd];
const valueOf = (flag) => argv[argv.indexOf(flag) + 1];
if (valueOf("--data") !== "/data") problems.push("the entrypoint does not pass --data /data");
if (valueOf("--out") !== "/runs") problems.push("the entrypoint does not pass --out /runs");
const bin = path.join(here, "..", "bin", "gitgood.js");
const help = spawnSync(process.execPath, [bin, "a2a", "serve", "--help"], { encoding: "utf8" });
if (help.status !== 0) problems.push(`cannot ask the built gitgood for its flags (npm run build first): ${help.stderr.trim()}`);
else for (const flag of argv.filter((a) => a.startsWith("--"))) if (!new RegExp(`(^|\\s)${flag}\\b`).test(help.stdout)) problems.push(`gitgood a2a serve takes no ${flag}`);

if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`check-image: ${file}: ${p}\n`);
  process.exit(1);
}
process.stdout.write(`check-image: ${file}: packages, health check, volumes and entrypoint flags are as gitgood needs\n`);
