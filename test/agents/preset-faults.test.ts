import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackage, PresetAgent, type AgentPreset } from "../../src/agents/presets/index.js";
import type { Sample } from "../../src/dataset/sample.js";
import { RunProxy } from "../../src/proxy/index.js";
import { runConfig } from "../../src/runs/config.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { bwrapUnavailable, chooseIsolation } from "../../src/sandbox/isolation.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";
import { preset } from "./preset-runs.js";

// A preset agent that misbehaves, one way per attempt of the same run. It is installed as any preset is (the
// Claude Code package the real-agent tests share: the program that runs is the preset's command).
const claude = preset("claude-code");

/** What the agent does, by scenario and sample: hang, ask on the terminal, ask on stdin, or fail. */
const MISBEHAVE = [
  'case "$GITGOOD_SCENARIO:$GITGOOD_SAMPLE_ID" in',
  "  mcr:*_0000) echo started; sleep 100000 ;;",
  "  mcr:*) printf 'Continue? [y/N] ' > /dev/tty; read -r answer < /dev/tty ;;",
  "  ir:*) printf 'Your API key: '; read -r answer || { echo 'no answer on stdin' >&2; exit 4; } ;;",
  "  *) echo 'working'; echo 'fatal: cannot go on' >&2; exit 3 ;;",
  "esac",
].join("\n");

const faulty: AgentPreset = {
  name: "faulty",
  package: claude.package,
  version: claude.version,
  summary: "misbehaves",
  api: "openai",
  home: () => ({}),
  command: () => MISBEHAVE,
  env: () => ({}),
};

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;
beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
  await installPackage(claude.package, claude.version);
}, 600_000);
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

const noBwrap = bwrapUnavailable();

describe("a preset agent that misbehaves", () => {
  it("hangs (time limit), asks for input on the terminal or stdin, or exits non-zero: each one line, the agent's error, and the run goes on", async (ctx) => {
    if (noBwrap) ctx.skip();
    const proxy = new RunProxy({ upstreams: {} });
    const agent = new PresetAgent(faulty, { model: "m", tools: "shell", proxy });
    const out = `${dirs.out}-faults`;
    const timeoutSeconds = 30;
    try {
      const summary = await runBenchmark({
        samples,
        where: { repo: fx.dir },
        agent,
        store: RunStore.open(out, runConfig({ samples: ["t"], agent: agent.name }, (p) => p)),
        jobs: 4,
        spec: { timeout_s: timeoutSeconds, max_turns: 5 },
        judges: [],
        isolation: chooseIsolation({ mode: "namespace" }),
      });
      const byKey = new Map(summary.records.map((r) => [r.key.replace(/^acme_calc_(file_commit_)?/, ""), r]));
      expect([...byKey.keys()].sort()).toEqual(["chain_0000.ICC", "chain_0000.IR", "merge_0000.MCR", "merge_0001.MCR"]);
      const error = (key: string): NonNullable<ResultRecord["error"]> => {
        const r = byKey.get(key) as ResultRecord;
        expect(r, JSON.stringify(r)).toMatchObject({ status: "error", verdict: "error" });
        expect(r.error?.message).not.toContain("\n");
        return r.error as NonNullable<ResultRecord["error"]>;
      };
      expect(error("merge_0000.MCR")).toEqual({ code: "TIMEOUT", message: `the agent did not finish within ${timeoutSeconds} s` });
      // No terminal: the question fails at once instead of waiting for an answer.
      expect(error("merge_0001.MCR")).toMatchObject({ code: "AGENT_FAILED", message: expect.stringMatching(/^agent command exited with code \d+: .*\/dev\/tty/) });
      // Stdin is closed: the read ends at once.
      expect(error("chain_0000.IR")).toEqual({ code: "AGENT_FAILED", message: "agent command exited with code 4: no answer on stdin" });
      expect(error("chain_0000.ICC")).toEqual({ code: "AGENT_FAILED", message: "agent command exited with code 3: fatal: cannot go on" });
      // What the failing agent printed is in its trajectory.
      const icc = byKey.get("chain_0000.ICC") as ResultRecord;
      const text = readFileSync(path.join(out, icc.trajectory ?? ""), "utf8");
      expect(text).toContain("command exited with code 3\\n--- stdout ---\\nworking");
    } finally {
      await proxy.close();
    }
  }, 300_000);
});
