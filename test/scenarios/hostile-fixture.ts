import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach } from "vitest";
import type { ChainSample, MergeSample } from "../../src/dataset/sample.js";
import type { Strategy } from "../../src/scenarios/definition.js";
import type { InitialContext, LiveScenario } from "../../src/scenarios/types.js";
import { Fixture } from "../helpers/fixture.js";
import { chainSample, mergeSample } from "../helpers/scenarios.js";

/** `café.py` in Latin-1: a file name that is not UTF-8. */
export const LATIN1_NAME = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x70, 0x79]);
/** How tools show it. */
export const LATIN1_SHOWN = '"caf\\351.py"';

/**
 * A directory holding a canary file that no tool may read or change, next to a source repository and
 * a sandbox root. Links in the repository point at the canary absolutely and relatively (with enough
 * `../` to reach it from any depth), at the directory holding it, nowhere, and into `.git`.
 */
export class HostileWorld {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-hostile-"));
  readonly outside = path.join(this.dir, "outside");
  readonly canary = path.join(this.outside, "canary.txt");
  readonly canaryText = `CANARY-${randomBytes(8).toString("hex")}`;
  /** A relative link target that reaches the canary from any directory. */
  readonly canaryRelative = `${"../".repeat(40)}${this.canary.slice(1)}`;
  /** Where a tool that writes through a dangling link would create a file. */
  readonly created = path.join(this.outside, "created-by-agent.txt");
  readonly sandboxes = path.join(this.dir, "sandboxes");
  /** For run directories (gitgood's own output, not checked by assertUntouched). */
  readonly runs = path.join(this.dir, "runs");
  readonly fx: Fixture;
  private readonly before: string;

  constructor() {
    mkdirSync(path.join(this.outside, "inner"), { recursive: true });
    mkdirSync(this.sandboxes);
    writeFileSync(this.canary, `${this.canaryText}\n`);
    writeFileSync(path.join(this.outside, "inner", "secret.py"), `${this.canaryText} inner\n`);
    this.fx = new Fixture({ dir: path.join(this.dir, "repo") });
    this.before = this.listing();
  }

  /** Every entry outside the repository and the sandboxes, with the content of files: what must never change. */
  listing(): string {
    const out: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        if (full === this.sandboxes || full === this.runs || full === this.fx.dir) continue;
        const st = lstatSync(full);
        if (st.isDirectory()) walk(full);
        else out.push(`${full} ${st.isSymbolicLink() ? `-> ${readlinkSync(full)}` : readFileSync(full, "latin1")}`);
      }
    };
    walk(this.dir);
    return out.join("\n");
  }

  /** Throws when anything outside the repository and the sandboxes was created, changed or removed. */
  assertUntouched(): void {
    const now = this.listing();
    if (now !== this.before) throw new Error(`files outside the sandbox changed:\n${now}\n--- before:\n${this.before}`);
  }

  /** Replaces entries of the fixture's work tree with symbolic links (never writing through a link there). */
  links(targets: Record<string, string>): void {
    for (const [name, target] of Object.entries(targets)) {
      const full = path.join(this.fx.dir, name);
      rmSync(full, { force: true });
      symlinkSync(target, full);
    }
  }

  remove(): void {
    this.fx.remove();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export const MERGE_LISTED = ["app.py", "abs.link", "rel.link", "dangling.link", "gitobj.link", "kind.py"];

/**
 * A merge whose conflicts are symbolic links: `abs.link` and `rel.link` point at the canary on our
 * side (what git leaves in the work tree), `dangling.link` at a file that does not exist outside,
 * `gitobj.link` into the sandbox's own `.git`; `kind.py` is a file on our side and a link to the
 * canary on theirs (git keeps the link and moves our file to `kind.py~HEAD`); `app.py` has markers.
 * The clean side changes `a.py`, `b.py` and a file literally named `[ab].py`; `docs` links to the
 * directory holding the canary and `gitlink` to `.git`. The recorded merge resolves every link to a
 * link (`rel.link` keeping our target) and drops `kind.py~HEAD`.
 */
export function buildHostileMerge(w: HostileWorld): { merge: string; sample: MergeSample } {
  const fx = w.fx;
  const app = (first: string): string => `${first}\n${Fixture.lines("a", 6)}`;
  w.links({ "abs.link": "base-abs", "rel.link": "base-rel", "dangling.link": "base-dangling", "gitobj.link": "base-git", docs: w.outside, gitlink: ".git" });
  fx.commit("base", { "app.py": app("base"), "kind.py": "kind\n", "a.py": "a\n", "b.py": "b\n", "[ab].py": "ab\n" });
  fx.checkout("feature", true);
  w.links({ "abs.link": "feature-abs", "rel.link": "../feature-rel", "dangling.link": "feature-dangling", "gitobj.link": "feature-git", "kind.py": w.canary });
  fx.commit("feature", { "app.py": app("feature"), "a.py": "a2\n", "b.py": "b2\n", "[ab].py": "ab2\n" });
  fx.checkout("main");
  w.links({ "abs.link": w.canary, "rel.link": w.canaryRelative, "dangling.link": w.created, "gitobj.link": ".git/objects/info/alternates" });
  fx.commit("main", { "app.py": app("main"), "kind.py": "main kind\n" });
  fx.tryGit("merge", "--no-ff", "--no-commit", "feature");
  w.links({ "abs.link": "merged-abs", "rel.link": w.canaryRelative, "dangling.link": "merged-dangling", "gitobj.link": "feature-git", "kind.py": w.canary });
  fx.write({ "app.py": app("both"), "kind.py~HEAD": null });
  fx.git("add", "-A");
  fx.git("commit", "-q", "--no-edit", "-m", "Merge feature");
  const merge = fx.head();
  return { merge, sample: mergeSample(fx, merge, MERGE_LISTED) };
}

/**
 * A merge whose only conflict is in a file named with Latin-1 bytes. The sample lists the name the
 * way a miner that decodes names as UTF-8 writes it (with a replacement character).
 */
export function buildLatin1Merge(w: HostileWorld): { merge: string; sample: MergeSample } {
  const fx = w.fx;
  const file = Buffer.concat([Buffer.from(`${fx.dir}/`), LATIN1_NAME]);
  const content = (x: string): string => `x = 1\n${x}\ny = 2\n`;
  writeFileSync(file, content("base"));
  fx.commit("base latin-1 name");
  fx.checkout("latin", true);
  writeFileSync(file, content("theirs"));
  fx.commit("theirs");
  fx.checkout("main");
  writeFileSync(file, content("ours"));
  fx.commit("ours");
  fx.tryGit("merge", "--no-ff", "--no-commit", "latin");
  writeFileSync(file, content("ours and theirs"));
  fx.git("add", "-A");
  fx.git("commit", "-q", "--no-edit", "-m", "Merge latin");
  const merge = fx.head();
  return { merge, sample: mergeSample(fx, merge, [LATIN1_NAME.toString("utf8")], "acme_widgets_merge_0001") };
}

/**
 * A chain of three commits to `lib.py` (changes far apart) that also change a link: `cfg.link` points
 * at the canary before the chain, relatively at it after the first commit and at `v2-target` after
 * the second, which also adds a file with a Latin-1 name; the third adds `new.link` to the canary.
 * Swapping the first two commits makes both steps stop on `cfg.link`.
 */
export function buildHostileChain(w: HostileWorld): { commits: string[]; sample: ChainSample } {
  const fx = w.fx;
  const lines = Array.from({ length: 60 }, (_, i) => `line${i}`);
  const lib = (changes: Record<number, string>): string => `${lines.map((l, i) => changes[i] ?? l).join("\n")}\n`;
  w.links({ "cfg.link": w.canary, docs: w.outside, gitlink: ".git" });
  fx.commit("base", { "lib.py": lib({}) });
  w.links({ "cfg.link": w.canaryRelative });
  const c1 = fx.commit("Point cfg at the shared config", { "lib.py": lib({ 5: "five" }) });
  w.links({ "cfg.link": "v2-target" });
  writeFileSync(Buffer.concat([Buffer.from(`${fx.dir}/`), LATIN1_NAME]), "latin = 1\n");
  const c2 = fx.commit("Use v2 config", { "lib.py": lib({ 5: "five", 30: "thirty" }) });
  w.links({ "new.link": w.canary });
  const c3 = fx.commit("Add new link", { "lib.py": lib({ 5: "five", 30: "thirty", 55: "fifty-five" }) });
  return { commits: [c1, c2, c3], sample: chainSample("lib.py", c1, c3, 3) };
}

/** What a real `git merge` of the merge's parents leaves: each unmerged path's bytes and its work-tree entry. */
export function realMerge(w: HostileWorld, merge: string): { path: Buffer; link: string | null; markers: number }[] {
  const fx = w.fx;
  const wt = path.join(w.dir, "oracle-merge");
  fx.git("worktree", "add", "-q", "--detach", wt, `${merge}^1`);
  try {
    fx.tryGitIn(wt, "-c", "merge.conflictStyle=merge", "merge", "-q", "--no-commit", "--no-ff", `${merge}^2`);
    const out = execFileSync("git", ["ls-files", "-u", "-z"], { cwd: wt }).toString("latin1");
    const paths = [...new Set(out.split("\0").filter(Boolean).map((r) => r.slice(r.indexOf("\t") + 1)))];
    return paths.map((latin) => {
      const bytes = Buffer.from(latin, "latin1");
      const full = Buffer.concat([Buffer.from(`${wt}/`), bytes]);
      if (lstatSync(full).isSymbolicLink()) return { path: bytes, link: readlinkSync(full, "utf8"), markers: 0 };
      const markers = readFileSync(full, "latin1").split("\n").filter((l) => /^<{7}( |\r?$)/.test(l)).length;
      return { path: bytes, link: null, markers };
    });
  } finally {
    fx.git("worktree", "remove", "--force", wt);
  }
}

/** Everything a scripted strategy's run showed: the initial context, and every tool call's output. */
export async function runStrategy(s: LiveScenario, strategy: Strategy): Promise<{ context: InitialContext; outputs: string[] }> {
  const context = await s.initialContext();
  const outputs: string[] = [];
  await strategy.run({
    scenario: s,
    context,
    beginTurn: () => undefined,
    async call(tool, args) {
      const r = await s.callTool(tool, args);
      outputs.push(r.output);
      return r;
    },
    isDone: () => s.isDone(),
  });
  return { context, outputs };
}

/**
 * The hooks every hostile test file needs: after each test its open scenarios are closed and the
 * canaries checked untouched; after the file the world is removed.
 */
export function afterEachHostileTest(world: () => HostileWorld, open: LiveScenario[]): void {
  afterAll(() => world().remove());
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
    world().assertUntouched();
  });
}
