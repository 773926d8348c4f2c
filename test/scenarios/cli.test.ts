import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson } from "../../src/dataset/sample.js";
import { gitgood, spawnGitgood, type CliOptions, type CliResult } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { blob, buildMergeFixture, buildSpacedChainFixture, resolutionsFor, snapshot, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let mergeFx: Fixture;
let chainFx: Fixture;
let merge: string;
let samples: string;

beforeAll(() => {
  root = useSandboxRoot();
  const m = buildMergeFixture();
  const c = buildSpacedChainFixture();
  mergeFx = m.fx;
  merge = m.merge;
  chainFx = c.fx;
  samples = path.join(root.root, "..", `samples-${process.pid}.jsonl`);
  writeFileSync(samples, `${sampleToJson(m.sample)}\n${sampleToJson(c.sample)}\n`);
});
afterAll(() => {
  mergeFx.remove();
  chainFx.remove();
  root.cleanup();
});

/** The test's sandbox root, and no sandbox named by the environment unless the call names one. */
const withRoot = (opts: CliOptions): CliOptions => ({ ...opts, env: { GITGOOD_SANDBOX_ROOT: root.root, GITGOOD_SANDBOX: "", ...opts.env } });

/** Runs the built CLI (npm run build first) as its own process, exactly as a shell runs it. */
const shell = (args: string[], opts: CliOptions = {}): CliResult => spawnGitgood(args, withRoot(opts));

/** Runs the CLI in this process. */
const cli = (args: string[], opts: CliOptions = {}): Promise<CliResult> => gitgood(args, withRoot(opts));

describe("gitgood env / tool", () => {
  it("drives an MCR scenario from the shell to the merge commit's tree (its own processes)", () => {
    const before = snapshot(mergeFx);
    const env = shell(["env", samples, "--id", "acme_widgets_merge_0000", "--repo", mergeFx.dir, "--json"]);
    expect(env.code, env.stderr).toBe(0);
    const out = JSON.parse(env.stdout) as { sandbox: string; scenario: string; tools: { function: { name: string } }[]; context: { conflicts: unknown[] } };
    expect(out.scenario).toBe("mcr");
    expect(out.context.conflicts).toHaveLength(4);
    expect(out.tools.map((t) => t.function.name)).toContain("resolve_current_merge_conflict_with");
    const sandboxEnv = { GITGOOD_SANDBOX: out.sandbox };

    const view = shell(["tool", "view_current_merge_conflict_with", "--args", '{"context_window_size": 1, "reason": "look"}'], { env: sandboxEnv });
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout).toContain("conflict 0 of 4");

    const bad = shell(["tool", "view_merge_conflict_at", "--args", '{"conflict_index": 9, "context_window_size": 1, "reason": "x"}'], { env: sandboxEnv });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("gitgood: there is no conflict 9: conflict indices run from 0 to 3\n");

    const badJson = shell(["tool", "view_current_merge_conflict_with", "--args", "{oops"], { env: sandboxEnv });
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("--args is not valid JSON");

    const work = path.join(out.sandbox, "work");
    let last = { code: 0, stdout: "", stderr: "" };
    for (const file of ["win.py", "app.py"]) {
      const conflicted = readFileSync(path.join(work, file));
      for (const content of resolutionsFor(conflicted, blob(mergeFx, merge, file))) {
        // Through standard input, so CRLF and quotes need no shell quoting.
        last = shell(["tool", "resolve_current_merge_conflict_with", "--args", "-", "--json"], {
          env: sandboxEnv,
          input: JSON.stringify({ content, reason: "resolve" }),
        });
        expect(last.code, last.stderr).toBe(0);
      }
    }
    expect(JSON.parse(last.stdout)).toMatchObject({ ok: true, done: true });

    const fin = shell(["env", "--finish", "--json"], { env: sandboxEnv });
    expect(fin.code, fin.stderr).toBe(0);
    const final = JSON.parse(fin.stdout) as { final_state: { tree: string; done: boolean }; verdict: string; solved: boolean | null };
    expect(final.final_state.done).toBe(true);
    // The verdict a run would record: the recorded merge's resolution solves it.
    expect(final).toMatchObject({ verdict: "solved", solved: true });
    expect(final.final_state.tree).toBe(mergeFx.git("rev-parse", `${merge}^{tree}`));
    expect(existsSync(out.sandbox)).toBe(false);
    expect(snapshot(mergeFx)).toEqual(before);
  }, 180_000);

  it("prints text output, lists tools, finds the only live sandbox, and finishes an ICC scenario", async () => {
    const env = await cli(["env", samples, "--id", "acme_widgets_file_commit_chain_0001", "--repo", chainFx.dir, "--scenario", "icc"]);
    expect(env.code, env.stderr).toBe(0);
    expect(env.stdout.split("\n")[0]).toMatch(/^sandbox: /);
    expect(env.stdout).toContain("HUNK-0  lib.py");
    expect(env.stdout).toContain("commit_changes_in(selected_hunks, commit_message)");
    expect(env.stderr).toContain("export GITGOOD_SANDBOX=");
    const list = await cli(["tool", "--list"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("commit_remaining_changes(commit_message)");
    const commit = await cli(["tool", "commit_changes_in", "--args", '{"selected_hunks": ["HUNK-0"], "commit_message": "Change five", "reason": "r"}']);
    expect(commit.code, commit.stderr).toBe(0);
    expect(commit.stdout).toContain("Hunks left to commit (3):");
    const rest = await cli(["tool", "commit_remaining_changes", "--args", '{"commit_message": "The rest", "reason": "r"}']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toContain("the task is finished");
    const fin = await cli(["env", "--finish"]);
    expect(fin.code, fin.stderr).toBe(0);
    expect(fin.stdout).toContain("icc: finished");
    expect(fin.stdout).toContain("Change five");
    expect(fin.stdout).toContain("The rest");
    expect(fin.stdout.trimEnd().split("\n").at(-1)).toBe("verdict: unjudged (no scorer decides without a judge; 'gitgood run --judge MODEL' asks one)");
    const none = await cli(["tool", "view_remaining_hunks", "--args", '{"reason": "r"}']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no live scenario");
  });

  it("reports usage errors in one line", async () => {
    const missing = await cli(["env", samples, "--id", "nope", "--repo", mergeFx.dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`gitgood: no sample with id nope in ${samples}\n`);
    const chain = await cli(["env", samples, "--id", "acme_widgets_file_commit_chain_0001", "--repo", chainFx.dir]);
    expect(chain.code).toBe(2);
    expect(chain.stderr).toContain("gives several scenarios: choose one of IR, ICC");
    const noArgs = await cli(["env"]);
    expect(noArgs.code).toBe(2);
    const gone = await cli(["tool", "view_rebase_todo", "--sandbox", path.join(root.root, "nothing-here")]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("not a gitgood sandbox");
  });
});
