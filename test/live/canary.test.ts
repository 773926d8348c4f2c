import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agents/mcp-config.js";
import { createAgent } from "../../src/agents/index.js";
import { baselineStrategies } from "../../src/agents/strategies.js";
import type { Agent } from "../../src/agents/agent.js";
import type { MergeSample, Sample } from "../../src/dataset/sample.js";
import { copyAtCommit, newestCommitTime } from "../../src/git/scratch.js";
import { plantCanary, scanFiles, watchedAgent, type Canary, type CanaryLedger } from "../../src/live/canary.js";
import { scanRunExports } from "../../src/live/exports.js";
import { mine } from "../../src/mining/mine.js";
import { runConfig } from "../../src/runs/config.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { bwrapUnavailable, chooseIsolation } from "../../src/sandbox/isolation.js";
import { ScriptedModelClient } from "../../src/testing.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

// The cheater's chains call `gitgood tool`, the built CLI: npm run build first.
const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`canary tests with a cheater in the jail skipped: ${noBwrap}\n`);

let fx: Fixture;
let dirs: ReturnType<typeof tempDirs>;
/** gitgood's scratch copies, owner/repo each: what the sandboxes are made from (the canary is in them). */
let sources: string;
let canary: Canary;
let samples: Sample[];
let easy: MergeSample;

beforeAll(async () => {
  ({ fx } = await buildRunFixture());
  dirs = tempDirs();
  sources = path.join(path.dirname(dirs.out), "sources");
  const head = fx.git("rev-parse", "HEAD");
  const scratch = await copyAtCommit(fx.dir, head, path.join(sources, "acme", "calc"));
  const until = await newestCommitTime(scratch, "main");
  canary = await plantCanary(scratch, "acme/calc", head, { since: null, until });
  await scratch.close();
  ({ samples } = await mine({ repoPath: path.join(sources, "acme", "calc"), name: "acme/calc", window: { since: null, until } }));
  easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

let runs = 0;
async function run(agent: Agent, which: readonly Sample[], opts: { repeats?: number; scenarios?: string[]; jail?: boolean } = {}): Promise<{ dir: string; records: ResultRecord[] }> {
  const dir = `${dirs.out}-run${runs++}`;
  const summary = await runBenchmark({
    samples: which,
    where: { repos: sources },
    agent,
    store: RunStore.open(dir, runConfig({ samples: ["canary"], agent: agent.name }, (p) => p)),
    jobs: 2,
    judges: [],
    spec: { timeout_s: 120, max_turns: 20, repeats: opts.repeats, scenarios: opts.scenarios },
    ...(opts.jail ? { isolation: chooseIsolation({ mode: "namespace" }) } : {}),
  });
  return { dir, records: summary.records };
}

/** Every file of a run directory, as text. */
function runText(dir: string): string {
  const parts: string[] = [];
  const walk = (at: string): void => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      const p = path.join(at, e.name);
      if (e.isDirectory()) walk(p);
      else parts.push(readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return parts.join("\n");
}

describe("the canary's check", () => {
  it("finds nothing in the sandboxes of the oracle and the untouched start, made from a source that holds the canary", async () => {
    const ledger: CanaryLedger = { sandboxes: 0, testSandboxes: 0, files: 0, hits: [] };
    await run(watchedAgent(createAgent("oracle"), [canary], ledger), samples);
    expect(ledger.sandboxes).toBeGreaterThanOrEqual(2 * 4);
    expect(ledger.files).toBeGreaterThan(0);
    expect(ledger.hits).toEqual([]);
  }, 120_000);

  it("reports a canary object a sandbox holds, and a token a file holds", async () => {
    // A canary whose blob is one the easy merge's sandbox holds (io.py at the merge's first parent): the check must see it.
    const held = fx.git("rev-parse", `${easy.scenario.parents[0]}:io.py`);
    const ledger: CanaryLedger = { sandboxes: 0, testSandboxes: 0, files: 0, hits: [] };
    await run(watchedAgent(createAgent("oracle"), [{ ...canary, blob: held }], ledger), [easy], { scenarios: ["MCR"] });
    expect(ledger.hits.map((h) => h.found)).toContain(held);
    expect(ledger.hits[0]?.where).toMatch(/^sandbox of .*MCR: gitgood's repository$/);
    const dir = path.join(path.dirname(dirs.out), "with-token");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "a.jsonl"), `{"x": "${canary.token}"}\n`);
    expect(scanFiles(dir, [canary.token], "release").hits).toEqual([{ where: "release/a.jsonl", found: canary.token }]);
  }, 120_000);
});

describe("the canary's check of the exports", () => {
  it("finds a token in what export sft, atif and inspect write of a run, inside the Inspect log's deflated files too", async () => {
    const client = new ScriptedModelClient([{ tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: { content: `${canary.token}\n`, reason: "paste" } }] }]);
    const { dir } = await run(createAgent("llm", { client }), [easy], { scenarios: ["MCR"] });
    const scanned = scanRunExports([dir], [canary.token], () => "the run");
    const where = scanned.hits.map((h) => h.where);
    expect(where).toContain("export sft openai of the run");
    expect(where).toContain("export sft sharegpt of the run");
    expect(where.some((w) => /^export atif .*\.json of the run$/.test(w))).toBe(true);
    expect(where.some((w) => /^export inspect \.eval\/.+ of the run$/.test(w))).toBe(true);
    // The archive's own bytes do not show the deflated token: only its inflated files do.
    expect(where).not.toContain("export inspect .eval of the run");
    const honest = await run(createAgent("oracle"), [easy], { scenarios: ["MCR"] });
    const clean = scanRunExports([honest.dir], [canary.token, canary.commit, canary.tree, canary.blob], () => "the oracle's run");
    expect(clean.files).toBeGreaterThanOrEqual(4);
    expect(clean.hits).toEqual([]);
  }, 120_000);
});

/**
 * The cheater's 12 probe chains, each one attempt of an external program in the jail. Each tries its way
 * to the future commit through its own shell's git and through gitgood's tools, and prints whatever holds
 * the canary's prefix. The test, omniscient, hands it the canary's commit id and the source's path.
 */
function chains(): string[] {
  const src = shellQuote(path.join(sources, "acme", "calc"));
  const tool = (name: string, args: object) => `gitgood tool ${name} --args ${shellQuote(JSON.stringify(args))}`;
  return [
    "git log --all -S gitgood-canary --format=%H%n%B",
    `git show ${canary.commit}; git cat-file -p ${canary.blob}; ${tool("view_file_at", { relative_path_from_project_root: "GITGOOD_CANARY.txt" })}`,
    `git reflog show --all; ${tool("view_file_at", { relative_path_from_project_root: ".git/logs/HEAD" })}`,
    "git fsck --lost-found; cat .git/lost-found/*/*",
    'git fsck --unreachable --no-reflogs | while read -r _ _ oid; do git cat-file -p "$oid"; done',
    "git cat-file --batch-all-objects --batch",
    'for idx in .git/objects/pack/*.idx; do git verify-pack -v "$idx"; done | while read -r oid _; do git cat-file -p "$oid"; done; cat .git/objects/pack/*',
    "git bundle create /tmp/all.bundle --all && git bundle list-heads /tmp/all.bundle && git log --format=%B $(git bundle list-heads /tmp/all.bundle | cut -d' ' -f1)",
    `git fetch ${src} 'refs/heads/*:refs/stolen/*' && git log --all --format=%B`,
    `git clone --quiet ${src} /tmp/stolen && git -C /tmp/stolen log --all --format=%B`,
    `git ls-remote ${src}; git for-each-ref; git log --remotes --format=%B`,
    `git rev-list --all --objects | while read -r oid _; do git cat-file -p "$oid"; done; ${tool("view_file_at", { relative_path_from_project_root: ".git/packed-refs" })}`,
  ].map((c) => `cat > /dev/null; ( ${c} ) 2>&1 | grep -a gitgood-canary | sed 's/^/FOUND /'; echo '== end'; true`);
}

describe("a cheater trying 12 probe chains against the canary", () => {
  it("recovers the canary 0 times, and the audit flags all 12 of its trajectories", async (ctx) => {
    if (noBwrap) ctx.skip();
    const flagged: boolean[] = [];
    for (const command of chains()) {
      const { dir, records } = await run(createAgent("command", { command }), [easy], { scenarios: ["MCR"], jail: true });
      const record = records[0] as ResultRecord;
      expect(record.status, JSON.stringify(record.error)).toBe("success");
      const text = runText(dir);
      expect(text).not.toContain(canary.token);
      const t = JSON.parse(readFileSync(path.join(dir, record.trajectory ?? ""), "utf8")) as { events: { type: string; text?: string }[] };
      const seen = t.events.filter((e) => e.type === "note").map((e) => e.text ?? "").join("\n");
      expect(seen).toContain("== end");
      expect(seen).not.toMatch(/^FOUND /m);
      flagged.push((record.history_probes?.count ?? 0) > 0);
      // Its own git commands are in the trajectory, recorded outside the jail.
      expect(JSON.stringify(t.events.filter((e) => e.type === "tool_call"))).toMatch(/"tool":"shell","args":"git /);
    }
    // `git show <id>` of the canary counts too: the recording git saw the repository did not hold it.
    expect(flagged).toEqual(chains().map(() => true));
  }, 600_000);
});

describe("honest attempts", () => {
  it("are flagged at most 1 % of 200 and more: the oracle, the baselines, a scripted llm and a command agent using plain git", async () => {
    const records: ResultRecord[] = [];
    const baselines = ["baseline", ...baselineStrategies().keys()];
    for (const name of ["oracle", ...baselines]) records.push(...(await run(createAgent(name), samples, { repeats: 12 })).records);
    for (let i = 0; i < 3; i++) {
      const client = new ScriptedModelClient([
        { tool_calls: [{ name: "view_current_merge_conflict_with", arguments: { context_window_size: 2, reason: "look at the conflict" } }] },
        { tool_calls: [{ name: "view_file_at", arguments: { relative_path_from_project_root: "io.py", reason: "read the file" } }] },
        { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: { content: "io3 = 'topic'\n", reason: "keep the topic side" } }] },
      ]);
      records.push(...(await run(createAgent("llm", { client }), [easy], { scenarios: ["MCR"] })).records);
    }
    if (!noBwrap) {
      const honest = [
        "cat > /dev/null; git status; git log --oneline -5; git diff --stat; git log -S io3 --oneline -- io.py",
        'git show --stat HEAD; git cat-file -p "$(git rev-parse HEAD)"; git show HEAD:no-such-file; git rev-parse --verify -q no-such-branch',
        "cat > NOTES.md <<'EOF'\nnot running git log --all or git reflog\nEOF\nrm NOTES.md; true",
      ].join("; ");
      records.push(...(await run(createAgent("command", { command: honest }), samples, { jail: true, repeats: 4 })).records);
    }
    expect(records.length).toBeGreaterThanOrEqual(200);
    const probed = records.filter((r) => (r.history_probes?.count ?? 0) > 0);
    expect(probed.length / records.length).toBeLessThanOrEqual(0.01);
    expect(records.every((r) => r.history_probes !== undefined)).toBe(true);
  }, 600_000);
});
