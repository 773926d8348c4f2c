import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainSample, MergeSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { mergeStore, type HistoryDepth } from "../../src/git/store.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { LiveScenario } from "../../src/scenarios/types.js";
import { Fixture, fixtureEnv } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { chainSample, mergeSample, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
const fixtures: Fixture[] = [];
const open: LiveScenario[] = [];

beforeAll(() => {
  root = useSandboxRoot();
});
afterAll(() => {
  for (const f of fixtures) f.remove();
  root.cleanup();
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: fixtureEnv(), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).trimEnd();
}

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/** Every object a repository holds (packed or loose). */
function objectsIn(dir: string): Set<string> {
  return new Set(words(git(dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")));
}

/** Every object reachable from `revs` (commits, trees, blobs) in the fixture. */
function reachable(fx: Fixture, ...revs: string[]): Set<string> {
  return new Set(fx.git("rev-list", "--objects", ...revs).split("\n").map((l) => l.split(" ")[0] as string));
}

/** A tree and everything below it. */
function treeObjects(fx: Fixture, tree: string): Set<string> {
  return new Set([tree, ...fx.git("ls-tree", "-r", "-t", tree).split("\n").map((l) => words(l)[2] as string)]);
}

function minus(a: Set<string>, ...others: Set<string>[]): Set<string> {
  return new Set([...a].filter((x) => !others.some((o) => o.has(x))));
}

/** Everything the reflogs of a repository say, as text. */
function reflogText(gitDir: string): string {
  const logs = path.join(gitDir, "logs");
  if (!existsSync(logs)) return "";
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : [readFileSync(p, "utf8")];
    });
  return walk(logs).join("\n");
}

/** The answer's objects that a sandbox shows anywhere an agent with a shell could look. */
function leaks(s: LiveScenario, answer: Set<string>): string[] {
  const work = s.sandbox.workDir;
  const visible = new Set([
    ...objectsIn(work),
    ...words(git(work, "log", "--all", "--reflog", "--format=%H %T")),
    ...words(reflogText(path.join(work, ".git"))),
  ]);
  return [...answer].filter((oid) => visible.has(oid));
}

function expectNoWayToTheSource(s: LiveScenario): void {
  const gitDir = path.join(s.sandbox.workDir, ".git");
  expect(existsSync(path.join(gitDir, "objects", "info", "alternates"))).toBe(false);
  expect(git(s.sandbox.workDir, "remote")).toBe("");
  expect(readFileSync(path.join(gitDir, "config"), "utf8")).not.toMatch(/remote|alternate/i);
  // The store is complete for what it holds (the shallow boundary aside).
  expect(git(s.sandbox.workDir, "fsck", "--no-dangling", "--no-progress")).toBe("");
}

function shallowOf(s: LiveScenario): string[] {
  const file = path.join(s.sandbox.workDir, ".git", "shallow");
  return existsSync(file) ? words(readFileSync(file, "utf8")) : [];
}

const log = (s: LiveScenario, rev: string): string[] => words(git(s.sandbox.workDir, "log", "--format=%H", rev));

async function start(sample: MergeSample | ChainSample, repo: string, opts: { scenario?: string; history?: HistoryDepth; workTree?: "full" | "tools" }) {
  const s = await setupScenario(sample, repo, opts);
  open.push(s);
  // What a program run in the sandbox sees (a tool-only sandbox writes its .git only then).
  s.sandbox.writeView();
  return s;
}

/**
 * Six commits of history, then a conflicting merge of `feature` whose recorded resolution adds text and
 * a file no parent has, and a commit after the merge.
 */
function buildMergeHistory() {
  const fx = new Fixture();
  fixtures.push(fx);
  const conf = (middle: string): string => `top\n${middle}\nbottom\n`;
  const old = Array.from({ length: 6 }, (_, i) =>
    fx.commit(`old ${i}`, { "hist.txt": `${i}\n`, ...(i === 0 ? { "conf.py": conf("base"), "pkg/util.py": "util\n" } : {}) }),
  );
  fx.checkout("feature", true);
  fx.commit("feature side", { "conf.py": conf("feature"), "pkg/feature.py": "feature\n" });
  fx.checkout("main");
  const mainSide = fx.commit("main side", { "conf.py": conf("main") });
  const merge = fx.merge("feature", { "conf.py": conf("RESOLVED by hand"), "answer.txt": "only in the answer\n" });
  const after = fx.commit("after the merge", { "after.txt": "after\n" });
  const sample = mergeSample(fx, merge, ["conf.py"]);
  const [p1, p2] = sample.scenario.parents;
  const answer = minus(reachable(fx, merge, after), reachable(fx, p1, p2));
  return { fx, old, mainSide, merge, after, sample, answer };
}

/** Five commits of history, a base, a chain of four commits to lib.py (one adds notes.txt), and a commit after it. */
function buildChainHistory() {
  const fx = new Fixture();
  fixtures.push(fx);
  const lib = (n: number): string => `${Fixture.lines("def f", 6)}value = ${n}\n${Fixture.lines("def g", 6)}`;
  const old = Array.from({ length: 5 }, (_, i) => fx.commit(`old ${i}`, { "hist.txt": `${i}\n`, ...(i === 0 ? { "lib.py": lib(0) } : {}) }));
  const base = fx.commit("unrelated", { "other.py": "other\n" });
  const chain = [1, 2, 3, 4].map((n) => fx.commit(`value ${n}`, { "lib.py": lib(n), ...(n === 2 ? { "notes.txt": "notes\n" } : {}) }));
  const after = fx.commit("after the chain", { "after.txt": "after\n" });
  const tip = chain[3] as string;
  const sample = chainSample("lib.py", chain[0] as string, tip, 4);
  return { fx, old, base, chain, tip, after, sample };
}

describe("an MCR sandbox holds the parents' history and no answer", () => {
  let m: ReturnType<typeof buildMergeHistory>;
  beforeAll(() => {
    m = buildMergeHistory();
  });

  for (const history of [1, 3, "full"] as const) {
    for (const workTree of ["full", "tools"] as const) {
      it(`has neither the merge commit, nor what comes after it, nor the answer's trees and blobs (history ${history}, ${workTree} work tree)`, async () => {
        const s = await start(m.sample, m.fx.dir, { history, workTree });
        expect(m.answer.size).toBeGreaterThan(3);
        expect(leaks(s, m.answer)).toEqual([]);
        expectNoWayToTheSource(s);
      });
    }
  }

  it("cuts the log at the merge base plus N first-parent commits, and keeps all of it with full history", async () => {
    const [p1, p2] = m.sample.scenario.parents;
    const c = m.old;
    const one = await start(m.sample, m.fx.dir, { history: 1 });
    expect(log(one, "HEAD")).toEqual([p1, c[5]]);
    expect(log(one, "MERGE_HEAD")).toEqual([p2, c[5]]);
    expect(shallowOf(one)).toEqual([c[5]]);
    const three = await start(m.sample, m.fx.dir, { history: 3 });
    expect(log(three, "HEAD")).toEqual([p1, c[5], c[4], c[3]]);
    expect(shallowOf(three)).toEqual([c[3]]);
    const full = await start(m.sample, m.fx.dir, { history: "full" });
    expect(log(full, "HEAD")).toEqual([p1, ...[...c].reverse()]);
    expect(shallowOf(full)).toEqual([]);
  });

  it("plans the store of a merge with one merge base from one git walk (its base and the commits above it), as git merge-base says", async () => {
    const [p1, p2] = m.sample.scenario.parents;
    const source = (await Repo.open(m.fx.dir)).keepReader();
    await source.reader?.read("HEAD");
    const { result, processes, commands } = await countGitProcesses(() => mergeStore(source, p1, p2, 3));
    await source.close();
    expect(commands).toEqual([`rev-list --parents --boundary ${p1}...${p2}`]);
    expect(processes).toBe(1);
    expect(m.fx.git("merge-base", "--all", p1, p2)).toBe(m.old[5]);
    expect(result.shallow).toEqual([m.old[3]]);
  });

  it("leaves the same conflicts as a plain git merge, whatever the history and work tree", async () => {
    const [p1, p2] = m.sample.scenario.parents;
    const real = realMerge(m.fx, p1, p2);
    for (const history of [1, "full"] as const) {
      for (const workTree of ["full", "tools"] as const) {
        const s = await start(m.sample, m.fx.dir, { history, workTree });
        expect(conflictedFiles(s)).toEqual(real);
      }
    }
  });
});

/** The unmerged files of a real `git merge` of p2 into p1 in a scratch worktree of the fixture, with their bytes. */
function realMerge(fx: Fixture, p1: string, p2: string): Record<string, string> {
  const wt = path.join(fx.scratch("real-merge"), `${p1.slice(0, 8)}-${p2.slice(0, 8)}`);
  fx.git("worktree", "add", "-q", "--detach", wt, p1);
  try {
    fx.tryGitIn(wt, "-c", "merge.conflictStyle=merge", "merge", "-q", "--no-commit", "--no-ff", p2);
    const files = fx.gitIn(wt, "diff", "--name-only", "-z", "--diff-filter=U").split("\0").filter(Boolean).sort();
    return Object.fromEntries(files.map((f) => [f, readFileSync(path.join(wt, f), "latin1")]));
  } finally {
    fx.git("worktree", "remove", "--force", wt);
  }
}

function conflictedFiles(s: LiveScenario): Record<string, string> {
  const files = git(s.sandbox.workDir, "diff", "--name-only", "-z", "--diff-filter=U").split("\0").filter(Boolean).sort();
  return Object.fromEntries(files.map((f) => [f, readFileSync(path.join(s.sandbox.workDir, f), "latin1")]));
}

describe("a criss-cross merge (two merge bases)", () => {
  it("gets the history below both bases that git's recursive merge of them reads, and leaves git's conflicts", async () => {
    const fx = new Fixture();
    fixtures.push(fx);
    const text = (changes: Record<number, string>): string =>
      `${Array.from({ length: 12 }, (_, i) => changes[i] ?? `line ${i}`).join("\n")}\n`;
    const before = fx.commit("before", { "f.py": text({}), "g.py": "g\n" });
    const bottom = fx.commit("bottom", { "g.py": "g2\n" });
    fx.checkout("x", true);
    const x1 = fx.commit("x1", { "f.py": text({ 0: "x first" }) });
    fx.checkout("main");
    fx.checkout("y", true);
    const y1 = fx.commit("y1", { "f.py": text({ 11: "y last" }) });
    fx.checkout("x");
    fx.merge("y");
    fx.commit("x3", { "f.py": text({ 0: "x first", 11: "y last", 6: "x middle" }) });
    fx.checkout("y");
    fx.git("merge", "-q", "--no-ff", "-m", "merge x1", x1);
    // y takes x's first-line change back: only the recursive merge of the bases (with their own base) sees that
    // as y's change alone; without that history, git would report it as a conflict.
    fx.commit("y3", { "f.py": text({ 11: "y last", 6: "y middle" }) });
    fx.checkout("main");
    fx.git("reset", "-q", "--hard", "x");
    const merge = fx.merge("y", { "f.py": text({ 11: "y last", 6: "both middles" }) });
    const sample = mergeSample(fx, merge, ["f.py"]);
    const [p1, p2] = sample.scenario.parents;
    expect(fx.git("merge-base", "--all", p1, p2).split("\n").sort()).toEqual([x1, y1].sort());

    const s = await start(sample, fx.dir, { history: 1 });
    const held = objectsIn(s.sandbox.workDir);
    expect(held.has(bottom)).toBe(true);
    expect(held.has(before)).toBe(false);
    expect(held.has(merge)).toBe(false);
    expect(conflictedFiles(s)).toEqual(realMerge(fx, p1, p2));
  });
});

describe("a merge whose sides both merged branches that started long before the merge base", () => {
  it("keeps the history from the merge base down to where those branches started, and leaves git's conflicts", async () => {
    const fx = new Fixture();
    fixtures.push(fx);
    const conf = (lines: Record<number, string>): string =>
      `${Array.from({ length: 9 }, (_, i) => lines[i] ?? `line ${i}`).join("\n")}\n`;
    fx.commit("root", { "conf.py": conf({}) });
    const topicsStart = fx.commit("start of the topics", { "conf.py": conf({ 1: "start" }) });
    const between = [2, 3, 4].map((n) => fx.commit(`main ${n}`, { "conf.py": conf({ 1: "start", [n]: `main ${n}` }) }));
    const fork = fx.commit("fork point", { "conf.py": conf({ 1: "start", 2: "main 2", 3: "main 3", 4: "main 4", 8: "fork" }) });
    for (const topic of ["topic1", "topic2"]) {
      fx.git("checkout", "-q", "-b", topic, topicsStart);
      fx.commit(topic, { [`${topic}.py`]: `${topic}\n` });
    }
    fx.git("checkout", "-q", "-b", "feature", fork);
    fx.merge("topic1");
    fx.commit("feature side", { "conf.py": conf({ 1: "start", 2: "main 2", 3: "main 3", 4: "main 4", 8: "fork", 6: "feature" }) });
    fx.checkout("main");
    fx.merge("topic2");
    fx.commit("main side", { "conf.py": conf({ 1: "start", 2: "main 2", 3: "main 3", 4: "main 4", 8: "fork", 6: "main" }) });
    const merge = fx.merge("feature", { "conf.py": conf({ 1: "start", 2: "main 2", 3: "main 3", 4: "main 4", 8: "fork", 6: "both" }) });
    const sample = mergeSample(fx, merge, ["conf.py"]);
    const [p1, p2] = sample.scenario.parents;
    expect(fx.git("merge-base", "--all", p1, p2)).toBe(fork);

    const s = await start(sample, fx.dir, { history: 1 });
    expect(conflictedFiles(s)).toEqual(realMerge(fx, p1, p2));
    expect(git(s.sandbox.workDir, "merge-base", "--all", p1, p2)).toBe(fork);
    const held = objectsIn(s.sandbox.workDir);
    for (const c of between) expect(held.has(c)).toBe(true);
    expect(held.has(merge)).toBe(false);
  });
});

describe("an IR sandbox holds the chain and its past, nothing after the tip", () => {
  let c: ReturnType<typeof buildChainHistory>;
  beforeAll(() => {
    c = buildChainHistory();
  });

  for (const history of [1, "full"] as const) {
    it(`has no commit after the tip, nor its objects (history ${history})`, async () => {
      const s = await start(c.sample, c.fx.dir, { scenario: "IR", history, workTree: "tools" });
      const answer = minus(reachable(c.fx, c.after), reachable(c.fx, c.tip));
      expect(answer.size).toBe(3);
      expect(leaks(s, answer)).toEqual([]);
      expectNoWayToTheSource(s);
      for (const commit of c.chain) expect(objectsIn(s.sandbox.workDir).has(commit)).toBe(true);
    });
  }

  it("cuts the log N first-parent commits before the chain", async () => {
    const one = await start(c.sample, c.fx.dir, { scenario: "IR", history: 1 });
    expect(log(one, "gitgood/ir")).toEqual([...c.chain].reverse().concat(c.base));
    expect(shallowOf(one)).toEqual([c.base]);
    const three = await start(c.sample, c.fx.dir, { scenario: "IR", history: 3 });
    expect(log(three, "gitgood/ir")).toEqual([...c.chain].reverse().concat(c.base, c.old[4] as string, c.old[3] as string));
  });
});

describe("an ICC sandbox holds the base's history and the tip's tree, but no commit of the chain", () => {
  let c: ReturnType<typeof buildChainHistory>;
  beforeAll(() => {
    c = buildChainHistory();
  });

  for (const history of [1, "full"] as const) {
    for (const workTree of ["full", "tools"] as const) {
      it(`has none of the chain's commits, their trees or intermediate blobs (history ${history}, ${workTree} work tree)`, async () => {
        const s = await start(c.sample, c.fx.dir, { scenario: "ICC", history, workTree });
        const tipTree = c.fx.git("rev-parse", `${c.tip}^{tree}`);
        const answer = minus(reachable(c.fx, c.after), reachable(c.fx, c.base), treeObjects(c.fx, tipTree));
        for (const commit of c.chain) expect(answer.has(commit)).toBe(true);
        // The chain's four commits and the one after, their trees but the tip's, lib.py of the first three, after.txt.
        expect(answer.size).toBe(5 + 4 + 3 + 1);
        expect(leaks(s, answer)).toEqual([]);
        expectNoWayToTheSource(s);
        expect(readFileSync(path.join(s.sandbox.workDir, "lib.py"), "utf8")).toBe(c.fx.git("show", `${c.tip}:lib.py`) + "\n");
        expect(readFileSync(path.join(s.sandbox.workDir, "notes.txt"), "utf8")).toBe("notes\n");
        expect(git(s.sandbox.workDir, "rev-parse", "HEAD")).toBe(c.base);
      });
    }
  }

  it("cuts the log at the base plus N - 1 first-parent commits", async () => {
    const two = await start(c.sample, c.fx.dir, { scenario: "ICC", history: 2 });
    expect(log(two, "HEAD")).toEqual([c.base, c.old[4]]);
    expect(shallowOf(two)).toEqual([c.old[4]]);
  });
});
