import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { bwrapUnavailable, chooseIsolation, type IsolationMode } from "../../src/sandbox/isolation.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { LiveScenario } from "../../src/scenarios/types.js";
import { scratchRoot } from "../../src/util/tempdirs.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildChainFixture, buildMergeFixture, useSandboxRoot } from "../helpers/scenarios.js";

/*
 * A program in the sandbox (an agent, or what a hostile repository makes it run) owns the work tree's
 * .git. Each attack below plants something there that would make a git process of gitgood's, running on
 * the host after the agent, run the agent's commands or write outside the sandbox. Canaries live in a
 * temporary directory outside the sandbox: they must be neither created nor changed, and their secret
 * must not appear in any tool output or final state. Every git process gitgood starts is traced
 * (GIT_TRACE_SETUP): none may use the work tree's .git, or anything outside the sandbox, as its git
 * directory or common directory.
 */

const noBwrap = bwrapUnavailable();
const SECRET = "CANARY-SECRET-7f3a";

type Family = "mcr" | "ir" | "icc";
type Attack = "commondir" | "files" | "gitdir";

let root: ReturnType<typeof useSandboxRoot>;
let merge: { fx: Fixture; sample: Sample };
let chain: { fx: Fixture; sample: Sample };

beforeAll(() => {
  root = useSandboxRoot();
  merge = buildMergeFixture();
  chain = buildChainFixture();
});
afterAll(() => {
  merge.fx.remove();
  chain.fx.remove();
  root.cleanup();
});

const HOOKS = ["post-commit", "post-checkout", "post-merge", "post-rewrite", "reference-transaction", "post-index-change", "pre-commit", "pre-rebase", "prepare-commit-msg", "commit-msg"];

/** A shell script that writes an executable hook named `name` into `dir`, touching `canary` when it runs. */
function hookScript(dir: string, canary: string): string {
  return HOOKS.map((name) => `printf '#!/bin/sh\\ntouch ${canary}-${name}\\n' > ${dir}/${name} && chmod +x ${dir}/${name}`).join(" && ");
}

/** A node program that replaces every loose-object directory of .git with a link to `target`. */
function linkObjectDirs(target: string): string {
  return `const fs = require("fs"); for (let i = 0; i < 256; i++) { const d = ".git/objects/" + i.toString(16).padStart(2, "0"); fs.rmSync(d, { recursive: true, force: true }); fs.symlinkSync(${JSON.stringify(target)}, d); }`;
}

/** The shell script the agent runs in the work tree for an attack, aimed at the canaries in `out`. */
function attackScript(attack: Attack, out: string): string {
  switch (attack) {
    case "commondir":
      // A git directory of the agent's own inside the work tree, named as .git's common directory.
      return [
        // It holds the repository's objects and refs, so gitgood's git keeps working through it.
        "git init -q --bare .evil",
        "git -C .evil config core.bare false",
        "cp -r .git/objects .git/refs .evil/",
        "{ cp .git/shallow .evil/ 2>/dev/null || true; }",
        `git -C .evil config core.fsmonitor 'touch ${out}/fsmonitor; false'`,
        "mkdir -p .evil-hooks",
        hookScript(".evil-hooks", `${out}/hook`),
        'git -C .evil config core.hooksPath "$PWD/.evil-hooks"',
        'echo "$PWD/.evil" > .git/commondir',
        "echo planted",
      ].join(" && ");
    case "files":
      return [
        // Reflogs that append to files outside.
        `mkdir -p .git/logs/refs/heads/gitgood && ln -sf ${out}/reflog-head .git/logs/HEAD`,
        `for b in mcr ir icc; do ln -sf ${out}/reflog-branch .git/logs/refs/heads/gitgood/$b; done`,
        // Every loose-object directory leads outside.
        `${JSON.stringify(process.execPath)} -e ${JSON.stringify(linkObjectDirs(`${out}/objects`))}`,
        // An object store outside, borrowed.
        `echo ${out}/alternate > .git/objects/info/alternates 2>/dev/null || true`,
        // Where .git/config is writable (no isolation), commands in it; refused in the jail.
        `(git config core.fsmonitor 'touch ${out}/config-fsmonitor; false' && mkdir -p .cfg-hooks && ${hookScript(".cfg-hooks", `${out}/config-hook`)} && git config core.hooksPath "$PWD/.cfg-hooks") 2>/dev/null || true`,
        "echo planted",
      ].join("; ");
    case "gitdir":
      // .git becomes a file naming a git directory outside (a mount point in the jail: only without isolation).
      // A working copy of the repository outside, with commands in its config.
      return [
        `cp -r .git/. ${out}/foreign.git/`,
        `git --git-dir=${out}/foreign.git config core.fsmonitor 'touch ${out}/foreign-fsmonitor; false'`,
        `rm -rf .git && printf 'gitdir: ${out}/foreign.git\\n' > .git && echo planted`,
      ].join(" && ");
  }
}

/** Prepares the canaries: files with the secret, an empty directory, a borrowed object store, a place for a foreign git directory. */
function canaries(out: string): void {
  writeFileSync(path.join(out, "reflog-head"), `${SECRET} head\n`);
  writeFileSync(path.join(out, "reflog-branch"), `${SECRET} branch\n`);
  mkdirSync(path.join(out, "objects"));
  mkdirSync(path.join(out, "alternate", "info"), { recursive: true });
  writeFileSync(path.join(out, "alternate", "info", "alternates"), `${out}/objects\n`);
  mkdirSync(path.join(out, "foreign.git"));
}

/** Every path below `dir` with its content (directories as "dir"), to compare before and after. */
function listing(dir: string, rel = "", into = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    const child = path.join(rel, name);
    const full = path.join(dir, child);
    try {
      const bytes = readFileSync(full);
      into.set(child, bytes.includes(0) ? `${bytes.length} bytes, sha256 ${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}` : bytes.toString("utf8"));
    } catch {
      into.set(child, "dir");
      listing(dir, child, into);
    }
  }
  return into;
}

/** Drives the family's tools to the end the way an agent would (what gitgood's git does after the agent ran). */
async function work(live: LiveScenario, family: Family): Promise<string[]> {
  const outputs: string[] = [];
  const call = async (name: string, args: Record<string, unknown>): Promise<void> => {
    const r = await live.callTool(name, { reason: "test", ...args });
    outputs.push(r.output);
  };
  switch (family) {
    case "mcr":
      await call("view_current_merge_conflict_with", { context_window_size: 0 });
      for (let i = 0; i < 10 && !live.isDone(); i++) await call("resolve_current_merge_conflict_with", { content: "resolved\n" });
      break;
    case "ir":
      await call("update_rebase_todo_list", {
        rebase_todo_list_items: [
          { commit_index: 0, command: "pick" },
          { commit_index: 1, command: "reword", commit_msg: "Renamed z()" },
          { commit_index: 2, command: "pick" },
          { commit_index: 3, command: "squash", commit_msg: "Return 111 and add c()" },
        ],
      });
      await call("execute_rebase", {});
      break;
    case "icc":
      await call("commit_changes_in", { selected_hunks: [0], commit_message: "First part" });
      await call("commit_remaining_changes", { commit_message: "The rest" });
      break;
  }
  expect(live.isDone(), outputs.join("\n")).toBe(true);
  return outputs;
}

/** The git and common directories every traced git process used (GIT_TRACE_SETUP prints them, then the process's cwd). */
function gitDirsUsed(trace: string): string[] {
  if (!existsSync(trace)) return [];
  const used: string[] = [];
  let pending: string[] = [];
  for (const line of readFileSync(trace, "utf8").split("\n")) {
    const dir = /setup: (?:git_dir|git_common_dir): (.*)$/.exec(line)?.[1];
    if (dir !== undefined) pending.push(dir);
    const cwd = /setup: cwd: (.*)$/.exec(line)?.[1];
    if (cwd !== undefined) {
      used.push(...pending.map((d) => path.resolve(cwd, d)));
      pending = [];
    }
  }
  return used;
}

async function attempt(family: Family, isolation: IsolationMode, attack: Attack): Promise<void> {
  const out = mkdtempSync(path.join(os.tmpdir(), "gitgood-git-door-"));
  const trace = path.join(mkdtempSync(path.join(os.tmpdir(), "gitgood-git-door-trace-")), "setup.trace");
  canaries(out);
  const fx = family === "mcr" ? merge : chain;
  const live = await setupScenario(fx.sample, fx.fx.dir, family === "mcr" ? {} : { scenario: family });
  try {
    live.sandbox.isolate(chooseIsolation({ mode: isolation }));
    const planted = await live.sandbox.exec(["sh", "-c", attackScript(attack, out)], {});
    expect(planted.stdout.toString("utf8"), planted.stderr.toString("utf8")).toContain("planted");
    // Without isolation the agent may write outside itself; what counts is what gitgood's git does from here on.
    const before = listing(out);
    process.env.GIT_TRACE_SETUP = trace;
    let outputs: string[] = [];
    let final: unknown;
    let truth = "";
    let failure: unknown = null;
    try {
      outputs = await work(live, family);
      final = await live.finalState();
      truth = await live.definition.groundTruth(live as never, final as never, await Repo.open(fx.fx.dir));
    } catch (err) {
      failure = err;
    } finally {
      delete process.env.GIT_TRACE_SETUP;
    }
    // Nothing outside was created, changed or removed: no command ran, no reflog line, no object written.
    expect(listing(out)).toEqual(before);
    if (failure) throw failure;
    for (const text of [...outputs, JSON.stringify(final), truth]) expect(text).not.toContain(SECRET);
    const used = gitDirsUsed(trace);
    expect(used.length).toBeGreaterThan(0);
    // gitgood's own git directory, the source repository (read for the recorded commits), or the scratch
    // store of gitgood's own that the recorded merge's diff is read from: never the sandbox's work tree or outside.
    const source = path.join(fx.fx.dir, ".git");
    const scratchStore = new RegExp(`^${scratchRoot().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/gitgood-fileset-[A-Za-z0-9]{6}/git$`);
    for (const dir of new Set(used)) {
      if (!scratchStore.test(dir)) expect([live.sandbox.ownGitDir, source], `a git process used ${dir}`).toContain(dir);
    }
  } finally {
    live.close();
    rmSync(out, { recursive: true, force: true });
    rmSync(path.dirname(trace), { recursive: true, force: true });
  }
}

const FAMILIES: Family[] = ["mcr", "ir", "icc"];

describe("gitgood's git never trusts the work tree's .git", () => {
  for (const family of FAMILIES) {
    describe(family.toUpperCase(), () => {
      it.skipIf(noBwrap !== null).each<Attack>(["commondir", "files"])("in the namespace jail: %s", async (attack) => {
        await attempt(family, "namespace", attack);
      });
      it.each<Attack>(["commondir", "files", "gitdir"])("without isolation: %s", async (attack) => {
        await attempt(family, "none", attack);
      });
    });
  }
});

describe.skipIf(noBwrap !== null)("the agent's repository shows gitgood's history", () => {
  it.each<Family>(FAMILIES)("%s: git in the jail sees the commits the tools made", async (family) => {
    const fx = family === "mcr" ? merge : chain;
    const live = await setupScenario(fx.sample, fx.fx.dir, family === "mcr" ? {} : { scenario: family });
    try {
      live.sandbox.isolate(chooseIsolation({ mode: "namespace" }));
      await work(live, family);
      const final = (await live.finalState()) as { head: string };
      const seen = await live.sandbox.exec(["sh", "-c", "git rev-parse HEAD && git status --porcelain --untracked-files=no && git fsck --no-dangling --connectivity-only HEAD && echo fsck-ok"], {});
      const lines = seen.stdout.toString("utf8").split("\n").filter(Boolean);
      expect(lines, seen.stderr.toString("utf8")).toEqual([final.head, "fsck-ok"]);
    } finally {
      live.close();
    }
  });
});
