#!/usr/bin/env node
// `npm run setup:system`: installs what the test suite needs from the system through apt-get, when this is a
// Debian or Ubuntu machine and we may; otherwise says exactly what to install. Exit 0 when everything is there.
import { spawnSync } from "node:child_process";
import { SYSTEM_DEPS, systemProblem } from "./system-deps.js";

const missing = SYSTEM_DEPS.filter((d) => !d.present());
if (missing.length > 0) {
  const packages = missing.map((d) => d.debian);
  const hasApt = spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = !isRoot && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0;
  if (!hasApt || (!isRoot && !sudo)) {
    console.error(`missing: ${missing.map((d) => d.name).join(", ")}; install the Debian/Ubuntu packages ${packages.join(" ")} (as root: apt-get install -y ${packages.join(" ")}), or your system's equivalents`);
    process.exit(1);
  }
  const prefix = isRoot ? [] : ["sudo", "-n"];
  const apt = (args) => {
    const [cmd, ...rest] = [...prefix, "apt-get", ...args];
    return spawnSync(cmd, rest, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status === 0;
  };
  console.error(`installing ${packages.join(" ")} with apt-get`);
  if (!apt(["update", "-qq"]) || !apt(["install", "-y", "-qq", ...packages])) {
    console.error(`apt-get could not install ${packages.join(" ")}`);
    process.exit(1);
  }
}
const problem = systemProblem();
if (problem !== null) {
  console.error(problem);
  process.exit(1);
}
console.error(`system dependencies present: ${SYSTEM_DEPS.map((d) => d.name).join(", ")}`);
