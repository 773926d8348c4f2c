import { execFileSync } from "node:child_process";
import { lstatSync, readlinkSync, readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { MergeSample } from "../../src/dataset/sample.js";
import { showPath } from "../../src/git/paths.js";
import { openScenario, setupScenario } from "../../src/scenarios/index.js";
import type { McrScenario } from "../../src/scenarios/mcr/scenario.js";
import type { McrFinalState } from "../../src/scenarios/mcr/state.js";
import type { LiveScenario } from "../../src/scenarios/types.js";
import { snapshot } from "../helpers/scenarios.js";
import { HostileWorld, MERGE_LISTED, buildHostileMerge, realMerge, runStrategy, afterEachHostileTest } from "./hostile-fixture.js";

let w: HostileWorld;
let merge: string;
let sample: MergeSample;
const open: LiveScenario[] = [];
const reason = "test";

beforeAll(() => {
  w = new HostileWorld();
  ({ merge, sample } = buildHostileMerge(w));
});
afterEachHostileTest(() => w, open);

async function start(): Promise<McrScenario> {
  const s = (await setupScenario(sample, w.fx.dir, { root: w.sandboxes })) as McrScenario;
  open.push(s);
  return s;
}

/** Everything an agent, a trajectory or a report could be shown: no canary content, no source path. */
function expectClean(texts: readonly string[]): void {
  for (const t of texts) {
    expect(t).not.toContain(w.canaryText);
    expect(t).not.toContain(w.fx.dir);
  }
}

describe("MCR with symbolic links in the conflict", () => {
  it("numbers the conflicts git leaves, and shows each link as git stores it (real git merge is the oracle)", async () => {
    const s = await start();
    const real = realMerge(w, merge);
    const files = s.conflicts.files;
    expect(new Set(files.map((f) => f.path))).toEqual(new Set(real.map((r) => showPath(r.path))));
    expect(files.map((f) => f.path)).toEqual([...MERGE_LISTED, "kind.py~HEAD"]);
    const ctx = await s.initialContext();
    const conflicts = (ctx.data as { conflicts: { file: string; text: string }[] }).conflicts;
    for (const r of real) {
      const shown = showPath(r.path);
      const mine = conflicts.filter((c) => c.file === shown);
      if (r.link !== null) {
        expect(mine.map((c) => c.text), shown).toEqual([r.link]);
        expect(files.find((f) => f.path === shown)?.mode).toBe("120000");
      } else expect(mine, shown).toHaveLength(Math.max(1, r.markers));
    }
    const abs = conflicts.find((c) => c.file === "abs.link");
    expect(abs?.text).toBe(w.canary);
    expect(ctx.text).toContain(`the sides' targets: base "base-abs", ours ${JSON.stringify(w.canary)}, theirs "feature-abs"`);
    expect(ctx.text).toContain('in kind.py: a symbolic link');
    const views: string[] = [];
    for (let i = 0; i < s.conflicts.conflicts.length; i++) {
      const r = await s.callTool("view_merge_conflict_at", { conflict_index: i, context_window_size: 5, reason });
      expect(r.ok, r.output).toBe(true);
      views.push(r.output);
    }
    expectClean([ctx.text, JSON.stringify(ctx.data), ...views]);
  });

  it("never reads through a link: link files, link directories and links into .git are refused", async () => {
    const s = await start();
    const outputs: string[] = [];
    const view = async (tool: string, p: string) => {
      const r = await s.callTool(tool, { relative_path_from_project_root: p, reason });
      outputs.push(r.output);
      return r;
    };
    for (const [p, code] of [
      ["abs.link", "SYMLINK_REFUSED"],
      ["rel.link", "SYMLINK_REFUSED"],
      ["dangling.link", "SYMLINK_REFUSED"],
      ["gitobj.link", "SYMLINK_REFUSED"],
      ["docs", "SYMLINK_REFUSED"],
      ["docs/canary.txt", "SYMLINK_REFUSED"],
      ["docs/inner/secret.py", "SYMLINK_REFUSED"],
      ["gitlink", "SYMLINK_REFUSED"],
      ["gitlink/objects/info/alternates", "SYMLINK_REFUSED"],
      [".git/objects/info/alternates", "PATH_OUTSIDE"],
      ["sub/.git/config", "PATH_OUTSIDE"],
      [w.canary, "PATH_OUTSIDE"],
    ]) {
      const r = await view("view_file_at", p as string);
      expect(r.ok, p).toBe(false);
      expect(r.error?.code, p).toBe(code);
    }
    expect((await view("view_file_at", "abs.link")).output).toContain("outside the project root");
    expect((await view("view_file_at", "gitobj.link")).output).toContain("into .git");
    for (const p of ["docs/canary.txt", "gitlink/config"]) {
      const r = await view("view_diff_for", p);
      expect(r.error?.code, p).toBe("SYMLINK_REFUSED");
    }
    // A link's own diff is git's: its target text, never what it points to.
    const linkDiff = await view("view_diff_for", "abs.link");
    expect(linkDiff.ok).toBe(true);
    expectClean(outputs);
  });

  it("takes paths literally: no pathspec magic or wildcards in view_diff_for", async () => {
    const s = await start();
    const diff = async (p: string) => (await s.callTool("view_diff_for", { relative_path_from_project_root: p, reason })).output;
    const brackets = await diff("[ab].py");
    expect(brackets).toContain("+ab2");
    expect(brackets).not.toContain("+a2");
    expect(brackets).not.toContain("+b2");
    for (const magic of [":(glob)*.py", "*.py", "*", ":!app.py", ":/a.py", ":(top)a.py", ":(icase)A.PY", "?.py"]) {
      expect(await diff(magic), magic).toBe(`No changes in ${magic}.`);
    }
    expect(await diff("a.py")).toContain("+a2");
  });

  it("a hostile resolution makes links, never writes through them, and commits link modes", async () => {
    const before = snapshot(w.fx);
    const s = await start();
    const outputs: string[] = [];
    let r;
    do {
      r = await s.callTool("resolve_current_merge_conflict_with", { content: "PWNED\n", reason });
      expect(r.ok, r.output).toBe(true);
      outputs.push(r.output);
    } while (!r.done);
    for (const name of ["abs.link", "rel.link", "dangling.link", "gitobj.link", "kind.py"]) {
      expect(lstatSync(path.join(s.sandbox.workDir, name)).isSymbolicLink(), name).toBe(true);
      expect(readlinkSync(path.join(s.sandbox.workDir, name)), name).toBe("PWNED\n");
    }
    const tree = execFileSync("git", ["ls-tree", "HEAD"], { cwd: s.sandbox.workDir, encoding: "utf8" });
    expect(tree).toMatch(/^120000 blob \S+\tabs\.link$/m);
    expect(tree).toMatch(/^120000 blob \S+\tkind\.py$/m);
    expect(tree).toMatch(/^100644 blob \S+\tkind\.py~HEAD$/m);
    const final = (await s.finalState()) as McrFinalState;
    expect(final.files.find((f) => f.path === "abs.link")?.content).toBe("PWNED\n");
    expectClean([...outputs, JSON.stringify(final), s.definition.describeFinal(final)]);
    expect(readdirSync(w.outside).sort()).toEqual(["canary.txt", "inner"]);
    expect(snapshot(w.fx)).toEqual(before);
  });

  it("the oracle reproduces the recorded merge exactly, links and all", async () => {
    const s = await start();
    const { context, outputs } = await runStrategy(s, s.definition.oracle);
    expect(s.isDone()).toBe(true);
    const final = (await s.finalState()) as McrFinalState;
    expect(final.tree).toBe(w.fx.git("rev-parse", `${merge}^{tree}`));
    const truth = await s.definition.groundTruth(s, final, s.sandbox.repo);
    expectClean([context.text, JSON.stringify(context.data), ...outputs, JSON.stringify(final), truth]);
  });

  it("a link swapped in behind the tools' back is refused, not followed", async () => {
    const s = await start();
    const app = path.join(s.sandbox.workDir, "app.py");
    execFileSync("ln", ["-sfn", w.canary, app]);
    const r = await s.callTool("view_current_merge_conflict_with", { context_window_size: 3, reason });
    expect(r.error?.code).toBe("SYMLINK_REFUSED");
    const write = await s.callTool("resolve_current_merge_conflict_with", { content: "overwrite\n", reason });
    expect(write.error?.code).toBe("SYMLINK_REFUSED");
    expectClean([r.output, write.output]);
    // The final state records what git would store there now: the link's target, not what it points to.
    const again = await openScenario(s.sandbox.dir);
    const final = (await again.finalState()) as McrFinalState;
    expect(final.files.find((f) => f.path === "app.py")?.content).toBe(w.canary);
    expectClean([JSON.stringify(final)]);
  });
});
