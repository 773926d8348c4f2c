import { execFileSync } from "node:child_process";
import { lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChainSample } from "../../src/dataset/sample.js";
import type { IccScenario } from "../../src/scenarios/icc/scenario.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { IrScenario } from "../../src/scenarios/ir/scenario.js";
import type { HistoryFinalState, LiveScenario } from "../../src/scenarios/types.js";
import { HostileWorld, LATIN1_SHOWN, buildHostileChain, runStrategy, afterEachHostileTest } from "./hostile-fixture.js";

let w: HostileWorld;
let commits: string[];
let sample: ChainSample;
const open: LiveScenario[] = [];
const reason = "test";

beforeAll(() => {
  w = new HostileWorld();
  ({ commits, sample } = buildHostileChain(w));
});
afterEachHostileTest(() => w, open);

async function start<S extends LiveScenario>(scenario: "ir" | "icc", settings?: Record<string, unknown>): Promise<S> {
  const s = await setupScenario(sample, w.fx.dir, { scenario, root: w.sandboxes, settings });
  open.push(s);
  return s as S;
}

function expectClean(texts: readonly string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(w.canaryText);
    expect(t).not.toContain(w.fx.dir);
  }
}

/** What a real `git cherry-pick` of `commit` onto `onto` leaves: the unmerged paths and the link git leaves at `link`. */
function realPick(onto: string, commit: string, link: string): { unmerged: string[]; target: string } {
  const wt = path.join(w.dir, "oracle-pick");
  w.fx.git("worktree", "add", "-q", "--detach", wt, onto);
  try {
    w.fx.tryGitIn(wt, "cherry-pick", "--no-commit", commit);
    const unmerged = w.fx.gitIn(wt, "diff", "--name-only", "--diff-filter=U").split("\n").filter(Boolean);
    return { unmerged, target: readlinkSync(path.join(wt, link), "utf8") };
  } finally {
    w.fx.git("worktree", "remove", "--force", wt);
  }
}

describe("IR over a chain that changes symbolic links", () => {
  it("shows link changes as git stores them and stops on link conflicts as git does", async () => {
    const s = await start<IrScenario>("ir");
    const seen: string[] = [];
    const ctx = await s.initialContext();
    seen.push(ctx.text, JSON.stringify(ctx.data));
    expect(ctx.text).toContain(`+${w.canaryRelative}`);
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = await s.callTool(tool, { ...args, reason });
      expect(r.ok, r.output).toBe(true);
      seen.push(r.output);
      return r;
    };
    const order = [1, 0, 2].map((i) => ({ commit_index: i, command: "pick" }));
    await call("update_rebase_todo_list", { rebase_todo_list_items: order });
    const stop = await call("execute_rebase", {});
    const real = realPick(`${commits[0]}^`, commits[1] as string, "cfg.link");
    expect(real.unmerged).toEqual(["cfg.link"]);
    expect(stop.output).toContain("conflicts in cfg.link (1 conflict(s))");
    expect(s.activeConflicts().files).toMatchObject([{ path: "cfg.link", mode: "120000", wholeFile: true }]);
    const view = await call("view_current_merge_conflict_with", { context_window_size: 3 });
    expect(view.output).toContain(`in cfg.link: a symbolic link`);
    expect(view.output).toContain(
      `the sides' targets: base ${JSON.stringify(w.canaryRelative)}, ours ${JSON.stringify(w.canary)}, theirs "v2-target"`,
    );
    expect(view.output).toContain(`region (the target now):\n${real.target}\n[gitgood] end`);
    const next = await call("resolve_current_merge_conflict_with", { content: "v2-target" });
    expect(next.output).toContain("conflicts in cfg.link");
    const done = await call("resolve_current_merge_conflict_with", { content: "v2-target" });
    expect(done.done).toBe(true);
    expect(readlinkSync(path.join(s.sandbox.workDir, "cfg.link"))).toBe("v2-target");
    expect(lstatSync(path.join(s.sandbox.workDir, "new.link")).isSymbolicLink()).toBe(true);
    const final = (await s.finalState()) as HistoryFinalState;
    expect(final.tree).toBe(w.fx.git("rev-parse", `${commits[2]}^{tree}`));
    expect(final.commits).toHaveLength(3);
    seen.push(JSON.stringify(final), await s.definition.groundTruth(s, final, s.sandbox.repo));
    expectClean(seen);
  });

  it("the oracle reproduces the chain", async () => {
    const s = await start<IrScenario>("ir");
    const { context, outputs } = await runStrategy(s, s.definition.oracle);
    const final = (await s.finalState()) as HistoryFinalState;
    expect(final.tree).toBe(w.fx.git("rev-parse", `${commits[2]}^{tree}`));
    expectClean([context.text, ...outputs, JSON.stringify(final)]);
  });
});

describe("ICC over a chain that changes symbolic links and a Latin-1 name", () => {
  it("offers link hunks as git's text, shows the name escaped, and the oracle reaches the tip", async () => {
    const s = await start<IccScenario>("icc", { scope: "all" });
    const ctx = await s.initialContext();
    const hunks = (ctx.data as { hunks: { path: string; text: string }[] }).hunks;
    expect(hunks.map((h) => h.path)).toEqual([LATIN1_SHOWN, "cfg.link", "lib.py", "lib.py", "lib.py", "new.link"]);
    expect(hunks.find((h) => h.path === "cfg.link")?.text).toContain(`-${w.canary}\n\\ No newline at end of file\n+v2-target`);
    expect(ctx.text).toContain(`HUNK-0  ${LATIN1_SHOWN} (new file)`);
    const { outputs } = await runStrategy(s, s.definition.oracle);
    const final = (await s.finalState()) as HistoryFinalState;
    expect(final.tree).toBe(w.fx.git("rev-parse", `${commits[2]}^{tree}`));
    const modes = execFileSync("git", ["ls-tree", "HEAD", "cfg.link", "new.link"], { cwd: s.sandbox.workDir, encoding: "utf8" });
    expect(modes.split("\n").filter(Boolean).every((l) => l.startsWith("120000 "))).toBe(true);
    expectClean([ctx.text, JSON.stringify(ctx.data), ...outputs, JSON.stringify(final)]);
  });
});
