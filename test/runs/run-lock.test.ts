import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { RUN_LOCK_FILE } from "../../src/runs/run-lock.js";
import { BIN, captureSink, gitgood, setEnv } from "../helpers/cli.js";
import { completion, fakeOpenAI } from "../helpers/fake-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { waitFor } from "../helpers/processes.js";
import { buildRunFixture } from "../helpers/runs.js";

// Some tests run the built CLI as its own process (npm run build first).
let fx: Fixture;
let samplesFile: string;
let easy: Sample;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  easy = samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy") as Sample;
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
});
afterAll(() => fx.remove());

const outDir = (): string => path.join(fx.scratch(`lock-${n++}`), "run");
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const keysIn = (out: string): string[] =>
  readFileSync(path.join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { key: string }).key);

/** A process that runs until killed; resolves once it has exited. */
function liveProcess(): { pid: number; kill: () => Promise<void> } {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid as number,
    kill: () => {
      child.kill("SIGKILL");
      return exited;
    },
  };
}

describe("one run per run directory", () => {
  it("refuses a second run on the same --out while the first works, in one line; the first finishes alone", { timeout: 60_000 }, async () => {
    // The first run's model request is held until the test lets it through.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = await fakeOpenAI([{ body: completion({ content: "OK" }) }, { body: completion({ content: "I give up." }), after: gate }]);
    const restore = setEnv({ ...env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "k" });
    const out = outDir();
    const args = ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "llm", "--model", "m", "--max-turns", "1", "--out", out];
    const call = (io = { stdout: captureSink(), stderr: captureSink(), stdin: Readable.from([]) }) => ({ io, code: main(args, io) });
    try {
      const first = call();
      await waitFor(() => server.requests.length === 2, "the first run asks the model for its sample");
      const second = call();
      expect(await second.code).toBe(1);
      expect(second.io.stderr.text()).toMatch(
        new RegExp(`^gitgood: another gitgood run \\(process ${process.pid}, since \\S+\\) works in ${escapeRegExp(out)}; wait for it to end or use another --out\\n$`),
      );
      expect(second.io.stdout.text()).toBe("");
      release();
      expect(await first.code, first.io.stderr.text()).toBe(0);
      expect(keysIn(out)).toEqual([`${easy.id}.MCR`]);
      expect(existsSync(path.join(out, RUN_LOCK_FILE))).toBe(false);
      // Once the first has ended, the directory is free again.
      const third = call();
      expect(await third.code).toBe(0);
      expect(third.io.stderr.text()).toMatch(/already done/);
    } finally {
      release();
      restore();
      await server.close();
    }
  });

  it("refuses a lock held by another live process, takes over one whose process is gone, and refuses a file it did not write", async () => {
    const out = outDir();
    const args = ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "oracle", "--out", out];
    expect((await gitgood(args, { env })).code).toBe(0);
    const lock = path.join(out, RUN_LOCK_FILE);
    const holder = liveProcess();
    try {
      writeFileSync(lock, JSON.stringify({ pid: holder.pid, host: os.hostname(), started: "2025-01-01T00:00:00.000Z" }));
      const refused = await gitgood(args, { env });
      expect(refused).toEqual({
        code: 1,
        stdout: "",
        stderr: `gitgood: another gitgood run (process ${holder.pid}, since 2025-01-01T00:00:00.000Z) works in ${out}; wait for it to end or use another --out\n`,
      });
    } finally {
      await holder.kill();
    }
    const taken = await gitgood(args, { env });
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stderr).toMatch(/already done/);
    expect(existsSync(lock)).toBe(false);

    writeFileSync(lock, "not a lock\n");
    const foreign = await gitgood(args, { env });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toBe(`gitgood: ${lock} is not a lock gitgood wrote; delete it if no gitgood run works in ${out}\n`);
    expect(readFileSync(lock, "utf8")).toBe("not a lock\n");
  });

  it.for([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)("releases the lock when %s stops the run (its own process)", { timeout: 60_000 }, async ([signal, code]) => {
    const out = outDir();
    const child = spawn(
      process.execPath,
      [BIN, "run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", "sleep 30", "--isolation", "none", "--out", out],
      { env: { ...process.env, ...env }, stdio: "ignore" },
    );
    const closed = new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    const lock = path.join(out, RUN_LOCK_FILE);
    await waitFor(() => existsSync(lock), "the run takes its lock");
    expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({ pid: child.pid, host: os.hostname() });
    child.kill(signal);
    expect(await closed).toBe(code);
    expect(existsSync(lock)).toBe(false);
  });
});

describe("run.json", () => {
  it("is written whole or not at all: a write that fails for a full file system leaves the previous one (its own process)", () => {
    const out = outDir();
    const args = ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "oracle", "--out", out];
    const first = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(first.status, first.stderr).toBe(0);
    const runJson = path.join(out, "run.json");
    const before = readFileSync(runJson);
    // Files may not grow past 1 KiB (as on a full disk, the write fails midway), and judges make run.json larger than that.
    const judges = ["a", "b"].map((c) => c.repeat(600)).join(",");
    const quoted = [process.execPath, BIN, ...args, "--judge", judges].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const full = spawnSync("bash", ["-c", `trap '' XFSZ; ulimit -f 1; exec ${quoted}`], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(full.status).toBe(1);
    expect(full.stderr).toBe(`gitgood: cannot write ${runJson}: EFBIG\n`);
    expect(readFileSync(runJson)).toEqual(before);
    expect(readdirSync(out).sort()).toEqual(["progress.jsonl", "results.jsonl", "run.json", "trajectories"]);
    const again = spawnSync(process.execPath, [BIN, ...args, "--judge", judges], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(runJson, "utf8")).spec.judges).toEqual(["a".repeat(600), "b".repeat(600)]);
  }, 180_000);
});
