// What the machine itself allows two processes at once, for the benches that compare one worker or job with
// two: a harness that starts processes cannot scale better than the machine's process starts do.
//
//   node bench/machine.js              prints both figures
//
// - spawnScaling(): a Node process starting `git --version` one after another (as gitgood starts git), alone
//   and then two such processes at once; the same for a plain CPU loop. Prints ms per start alone, and the
//   starts per second two processes reach together over one's (2.00 = they run side by side, 1.00 = the
//   machine does one start at a time whatever the cores).
// - countStarts(): how many programs a command starts (successful execve calls of the whole process tree,
//   counted by strace; null when strace is not installed).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);

/** One loop of `n` process starts (or `n` units of CPU work) in this process; prints its wall time in ms. */
async function loop(kind, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    if (kind === "spawn") {
      await new Promise((resolve, reject) => {
        const child = spawn("git", ["--version"], { stdio: ["ignore", "ignore", "ignore"] });
        child.on("error", reject);
        child.on("close", resolve);
      });
    } else {
      let x = 0;
      for (let k = 0; k < 2_000_000; k++) x = (x + k * k) % 1_000_003;
      if (x < 0) throw new Error("unreachable");
    }
  }
  process.stdout.write(`${performance.now() - t0}\n`);
}

/** Wall time (ms) of `count` loop processes started at once, each doing `n` units: the slowest one. */
async function together(kind, n, count) {
  const runs = Array.from({ length: count }, () =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [SELF, "--loop", kind, String(n)], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`${kind} loop exited ${code}`))));
    }),
  );
  return Math.max(...(await Promise.all(runs)));
}

/**
 * Process starts and CPU work, one process against two at once: ms per unit alone, and the throughput of
 * two over one (units per second of the pair / units per second of one). Medians of `rounds`.
 */
export async function spawnScaling({ starts = 100, cpuUnits = 60, rounds = 3 } = {}) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const measure = async (kind, n) => {
    const alone = [];
    const pair = [];
    for (let r = 0; r < rounds; r++) {
      alone.push(await together(kind, n, 1));
      pair.push(await together(kind, n, 2));
    }
    const a = median(alone);
    return { msEach: a / n, twoOverOne: (2 * a) / median(pair) };
  };
  return { spawn: await measure("spawn", starts), cpu: await measure("cpu", cpuUnits) };
}

/** Programs a command starts, itself included (successful execve calls of its process tree), or null without strace. */
export function countStarts(command, args, env) {
  if (spawnSync("strace", ["-V"], { stdio: "ignore" }).status !== 0) return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-starts-"));
  try {
    const summary = path.join(dir, "summary");
    spawnSync("strace", ["-f", "-qq", "-c", "-e", "trace=execve,execveat", "-o", summary, command, ...args], { env, stdio: "ignore" });
    if (!existsSync(summary)) return null;
    let starts = 0;
    // The summary's rows: % time, seconds, usecs/call, calls, [errors,] syscall.
    for (const line of readFileSync(summary, "utf8").split("\n")) {
      const cols = line.trim().split(/\s+/);
      const name = cols[cols.length - 1];
      if (name !== "execve" && name !== "execveat") continue;
      const calls = Number(cols[3]);
      const errors = cols.length === 6 ? Number(cols[4]) : 0;
      starts += calls - errors;
    }
    return starts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The lines the benches print about the machine. */
export function machineLines(m) {
  return [
    `  machine: a process starting \`git --version\` one after another: ${m.spawn.msEach.toFixed(1)} ms each; two such processes at once reach x${m.spawn.twoOverOne.toFixed(2)} the starts per second of one`,
    `           (a plain CPU loop: x${m.cpu.twoOverOne.toFixed(2)}; 2.00 = two cores side by side, 1.00 = one at a time)`,
  ];
}

if (process.argv[2] === "--loop") {
  await loop(process.argv[3], Number(process.argv[4]));
} else if (process.argv[1] === SELF) {
  const m = await spawnScaling();
  console.log(machineLines(m).join("\n"));
}
