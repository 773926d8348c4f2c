// Benchmark: start-up time of the CLI, as a command agent pays it on every tool call.
// Times `node bin/gitgood.js tool --help` against `node -e 0` (the floor: starting node itself),
// alternating the two, and prints both medians and their ratio. Nothing is asserted.
// Usage: npm run build && node bench/startup.js [--runs N]   (default 21 runs)
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 21;
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a whole number of at least 1, not '${args[runsAt + 1]}'`);

const bin = fileURLToPath(new URL("../bin/gitgood.js", import.meta.url));

/** Runs node with `nodeArgs` to its end; returns the elapsed milliseconds. */
function timed(nodeArgs) {
  const t = performance.now();
  const r = spawnSync(process.execPath, nodeArgs, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${nodeArgs.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

// One warm-up of each, so the first timed run does not pay for a cold file cache.
timed(["-e", "0"]);
timed([bin, "tool", "--help"]);
const floors = [];
const tools = [];
for (let i = 0; i < runs; i++) {
  floors.push(timed(["-e", "0"]));
  tools.push(timed([bin, "tool", "--help"]));
}
const floor = median(floors);
const tool = median(tools);
console.log(`floor (node -e 0):                  median ${floor.toFixed(1)} ms over ${runs} runs`);
console.log(`gitgood tool --help:                median ${tool.toFixed(1)} ms over ${runs} runs`);
console.log(`ratio tool --help / floor: ${(tool / floor).toFixed(2)}`);
