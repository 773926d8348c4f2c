// Benchmark: start-up of the CLI as its callers pay it, in CPU seconds against `node -e 0` (starting
// node itself), command and floor alternated so the machine's load hits both alike. Rows: a tool call
// through an attempt's tool broker (a command agent pays it on every call; the broker is a stand-in,
// bench/fake-broker.js, so only the client is timed), `gitgood tool --list` through the broker,
// `gitgood --help`, and `gitgood VERB --help` for every verb. Prints medians, the median of the pair
// ratios, and the load average. Nothing is asserted.
// Usage: npm run build && node bench/startup.js [--runs N]   (default 15 pairs per row)
import { row as benchRow } from "./rows.js";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 15;
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a whole number of at least 1, not '${args[runsAt + 1]}'`);

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "..", "bin", "gitgood.js");
const { VERBS } = await import("../dist/cli/verbs.js");

/** CPU seconds (user + system) of this process's finished children, from /proc (Linux). */
function childCpu() {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  // After the command name: cutime and cstime are fields 16 and 17 of stat(5), in clock ticks.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Runs node with `nodeArgs` to its end; returns its CPU seconds. */
function cpuOf(nodeArgs, env) {
  const before = childCpu();
  const r = spawnSync(process.execPath, nodeArgs, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`node ${nodeArgs.join(" ")} exited ${r.status}: ${r.stderr}`);
  return childCpu() - before;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-startup-"));
const socket = path.join(dir, "tool.sock");
const broker = spawn(process.execPath, [path.join(here, "fake-broker.js"), socket], { stdio: ["ignore", "pipe", "inherit"] });
await new Promise((resolve, reject) => {
  broker.stdout.once("data", resolve);
  broker.once("exit", (code) => reject(new Error(`the stand-in broker exited ${code}`)));
});
const brokered = { GITGOOD_TOOL_SOCKET: socket };

const rows = [
  { name: "brokered tool call", args: [bin, "tool", "view_current_merge_conflict_with", "--args", '{"reason": "look"}'], env: brokered, goal: 1.5 },
  { name: "brokered tool --list", args: [bin, "tool", "--list"], env: brokered, goal: 1.5 },
  { name: "tool --help", args: [bin, "tool", "--help"], env: {}, goal: 1.5 },
  { name: "--help", args: [bin, "--help"], env: {}, goal: 2 },
  ...VERBS.filter((v) => v.name !== "tool").map((v) => ({ name: `${v.name} --help`, args: [bin, v.name, "--help"], env: {}, goal: 2 })),
];

try {
  console.log(`start-up, CPU s (user + sys) against node -e 0, ${runs} pairs per row; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log(`${"command".padEnd(24)} ${"median s".padStart(9)} ${"floor s".padStart(8)} ${"ratio".padStart(6)}  goal`);
  for (const row of rows) {
    cpuOf(["-e", "0"], {});
    cpuOf(row.args, row.env);
    const a = [];
    const b = [];
    const ratios = [];
    for (let i = 0; i < runs; i++) {
      const floor = cpuOf(["-e", "0"], {});
      const cmd = cpuOf(row.args, row.env);
      a.push(cmd);
      b.push(floor);
      if (floor > 0) ratios.push(cmd / floor);
    }
    const ratio = median(ratios);
    benchRow(`start-up CPU / node -e 0: ${row.name}`, `<= ${row.goal}`, `${ratio.toFixed(2)}x`, ratio <= row.goal);
    console.log(
      `${row.name.padEnd(24)} ${median(a).toFixed(3).padStart(9)} ${median(b).toFixed(3).padStart(8)} ${ratio.toFixed(2).padStart(6)}  ≤ ${row.goal}× ${ratio <= row.goal ? "met" : "missed"}`,
    );
  }
  console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
} finally {
  broker.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
