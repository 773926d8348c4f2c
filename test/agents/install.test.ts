import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRESETS } from "../../src/agents/presets/index.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";

/*
 * A fake npm registry on 127.0.0.1: it knows every preset's package at its pinned version (a tiny tarball made
 * here), answers 404 for codex's package, and knows no other version. npm itself installs from it.
 */
const fx = new Fixture();
fx.commit("Initial", { "app.py": Fixture.lines("# line ", 12) });
fx.checkout("side", true);
fx.commit("Side", { "app.py": Fixture.lines("# line ", 12).replace("# line 5\n", "side\n") });
fx.checkout("main");
fx.commit("Main", { "app.py": Fixture.lines("# line ", 12).replace("# line 5\n", "main\n") });
fx.merge("side", { "app.py": Fixture.lines("# line ", 12).replace("# line 5\n", "both\n") });

const claude = PRESETS.find((p) => p.name === "claude-code")!;
const codex = PRESETS.find((p) => p.name === "codex")!;
let registry: http.Server;
let base = "";
let closedPort = 0;
const asked: string[] = [];

function tarball(name: string, version: string): Buffer {
  const dir = fx.scratch(`pkg-${createHash("sha1").update(name).digest("hex").slice(0, 8)}`);
  mkdirSync(path.join(dir, "package"), { recursive: true });
  writeFileSync(path.join(dir, "package", "package.json"), JSON.stringify({ name, version, bin: { fake: "index.js" } }));
  writeFileSync(path.join(dir, "package", "index.js"), "#!/usr/bin/env node\nconsole.log('fake');\n");
  const out = path.join(dir, "pkg.tgz");
  const r = spawnSync("tar", ["-czf", out, "-C", dir, "package"]);
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr.toString()}`);
  return readFileSync(out);
}

beforeAll(async () => {
  const tarballs = new Map<string, Buffer>();
  registry = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? "/");
    asked.push(url);
    const file = /^\/(.+)\/-\/[^/]+\.tgz$/.exec(url);
    if (file && tarballs.has(file[1]!)) {
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(tarballs.get(file[1]!));
      return;
    }
    const name = url.slice(1);
    const preset = PRESETS.find((p) => p.package === name);
    if (!preset || preset === codex) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
      return;
    }
    const tgz = tarballs.get(name) ?? tarball(name, preset.version);
    tarballs.set(name, tgz);
    const dist = {
      tarball: `${base}/${name}/-/fake-${preset.version}.tgz`,
      shasum: createHash("sha1").update(tgz).digest("hex"),
      integrity: `sha512-${createHash("sha512").update(tgz).digest("base64")}`,
    };
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({ name, "dist-tags": { latest: preset.version }, versions: { [preset.version]: { name, version: preset.version, dist } } }),
    );
  });
  await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterAll(async () => {
  await new Promise<void>((resolve) => registry.close(() => resolve()));
  fx.remove();
});

/** The environment of one call: its own agents directory and npm cache, npm pointed at `url`, no retries. */
function envFor(name: string, url = base) {
  return {
    GITGOOD_AGENTS_DIR: fx.scratch(`agents-${name}`),
    npm_config_cache: fx.scratch(`npm-cache-${name}`),
    npm_config_registry: `${url}/`,
    npm_config_fetch_retries: "0",
    npm_config_fetch_timeout: "20000",
  };
}

describe("gitgood agents", () => {
  it("installs a preset ahead of a run, then checks it without the registry; names what is missing", async () => {
    const env = envFor("ahead");
    const before = await gitgood(["agents", "--json"], { env });
    expect(before.code, before.stderr).toBe(0);
    const listed = JSON.parse(before.stdout) as { agents: { name: string; installed: boolean }[] };
    expect(listed.agents.map((a) => a.name)).toEqual(PRESETS.map((p) => p.name));
    expect(listed.agents.every((a) => !a.installed)).toBe(true);

    const r = await gitgood(["agents", "install", "claude-code"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^claude-code: @anthropic-ai/claude-code@${claude.version} installed in `));
    expect(existsSync(path.join(env.GITGOOD_AGENTS_DIR, `anthropic-ai+claude-code@${claude.version}`, "node_modules", "@anthropic-ai", "claude-code", "index.js"))).toBe(true);

    // Without the registry: check reads the disk only.
    const offline = { ...env, npm_config_registry: `http://127.0.0.1:${closedPort}/` };
    expect(await gitgood(["agents", "check", "claude-code"], { env: offline })).toMatchObject({ code: 0 });
    const missing = await gitgood(["agents", "check", "claude-code", "codex"], { env: offline });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/^gitgood: not installed in .*: codex \(@openai\/codex@[^)]+\); 'gitgood agents install' installs them where the npm registry can be reached\n$/);
    const listedAfter = await gitgood(["agents"], { env: offline });
    expect(listedAfter.stdout).toMatch(/^claude-code\s+@anthropic-ai\/claude-code@\S+\s+installed$/m);
    expect(listedAfter.stdout).toMatch(/^codex\s+@openai\/codex@\S+\s+not installed$/m);

    const bad = await gitgood(["agents", "install", "cursor"], { env });
    expect([bad.code, bad.stderr]).toEqual([2, `gitgood: no CLI agent named 'cursor'; known: ${PRESETS.map((p) => p.name).join(", ")}\n`]);
  });

  it("says why npm failed in its own words, never naming a debug log: unreachable, no such version, no such package", async () => {
    const offline = await gitgood(["agents", "install", "claude-code"], { env: envFor("offline", `http://127.0.0.1:${closedPort}`) });
    expect(offline.code).not.toBe(0);
    expect(offline.stderr).toMatch(/^gitgood: cannot install @anthropic-ai\/claude-code@\S+: the npm registry cannot be reached \(offline\?\); install the agent where it can be with 'gitgood agents install' .*\(npm said: .*ECONNREFUSED.*\)\n$/);

    const version = await gitgood(["agents", "install", "claude-code", "--agent-version", "9.9.9"], { env: envFor("version") });
    expect(version.stderr).toMatch(/^gitgood: cannot install @anthropic-ai\/claude-code@9\.9\.9: npm has no version 9\.9\.9 of @anthropic-ai\/claude-code \(--agent-version chooses another\) \(npm said: code ETARGET; .*\)\n$/);

    const pkg = await gitgood(["agents", "install", "codex"], { env: envFor("package") });
    expect(pkg.stderr).toMatch(/^gitgood: cannot install @openai\/codex@\S+: npm has no package @openai\/codex \(npm said: code E404; .*\)\n$/);

    for (const r of [offline, version, pkg]) expect(r.stderr).not.toMatch(/complete log|_logs/);
  });

  it("a run readies its preset before it writes anything: a failed install stops it in one line with no run directory", async () => {
    const samples = path.join(fx.scratch("data"), "samples.jsonl");
    const mined = await gitgood(["mine", fx.dir, "--name", "acme/app", "--output", samples]);
    expect(mined.code, mined.stderr).toBe(0);
    const out = path.join(fx.scratch("runs"), "claude");
    const env = { ...envFor("run", `http://127.0.0.1:${closedPort}`), GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
    const r = await gitgood(["run", samples, "--repo", fx.dir, "--agent", "claude-code", "--model", "m", "--out", out], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^gitgood: cannot install @anthropic-ai\/claude-code@\S+: the npm registry cannot be reached/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
  });
});
