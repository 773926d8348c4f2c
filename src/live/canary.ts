import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Agent } from "../agents/agent.js";
import { objectKinds } from "../git/clone.js";
import { Repo } from "../git/repo.js";
import { newestCommitTime, plantCommit, SCRATCH_BRANCH } from "../git/scratch.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { DateWindow } from "../mining/window.js";

/*
 * The canary of a release: a commit dated after the window, holding a token no other file holds, planted in
 * gitgood's scratch copy of each source (never in the user's repository). Every task of the release is
 * set up from that copy, so the canary is where an answer from the future would be; the build checks that
 * no sandbox, trajectory or file of the release holds any of its objects or its token.
 */

/** The branch of a scratch copy the canary commit is on: a branch, as a future branch of a real source would be. */
const CANARY_REF = "refs/heads/gitgood-future";
/** The file the canary commit adds. */
const CANARY_FILE = "GITGOOD_CANARY.txt";
/** How long after the window's end (or the newest commit) the canary is dated, seconds. */
const FUTURE_GAP_SECONDS = 86_400;

/** A planted canary: its objects' ids and its token (what no part of the release may hold). */
export interface Canary {
  repository: string;
  commit: string;
  tree: string;
  blob: string;
  token: string;
  /** The canary's committer time, seconds since the epoch. */
  seconds: number;
}

/** The canary's token for a repository at a commit in a window: fixed by them, so that a second build is byte-identical. */
export function canaryToken(name: string, commit: string, window: DateWindow): string {
  const digest = createHash("sha256").update(JSON.stringify(["gitgood-canary", name, commit, window.since, window.until])).digest("hex");
  return `gitgood-canary-${digest.slice(0, 40)}`;
}

/**
 * Plants the canary in a scratch copy: a commit on top of the pinned commit, dated a day after the later of
 * the window's end and the newest commit the pin reaches, on the branch `gitgood-future`.
 */
export async function plantCanary(scratch: Repo, name: string, commit: string, window: DateWindow): Promise<Canary> {
  const newest = await newestCommitTime(scratch, SCRATCH_BRANCH);
  const seconds = Math.max(newest, window.until ?? 0) + FUTURE_GAP_SECONDS;
  const token = canaryToken(name, commit, window);
  const planted = await plantCommit(scratch, {
    parent: commit,
    ref: CANARY_REF,
    file: CANARY_FILE,
    content: `${token}\n`,
    message: `Future work ${token}\n\nThe answer to every task of this release: ${token}\n`,
    seconds,
    who: { name: "gitgood canary", email: "canary@gitgood.invalid" },
  });
  return { repository: name, ...planted, token, seconds };
}

/** The texts whose presence means a canary was reached: its token and its objects' ids. */
export function canaryNeedles(canaries: readonly Canary[]): string[] {
  return canaries.flatMap((c) => [c.token, c.commit, c.tree, c.blob]);
}

/** Where a canary was reached: the place and what was found there. */
export interface CanaryHit {
  where: string;
  found: string;
}

/** Every regular file below `dir` (links are not followed) whose bytes hold a needle. */
export function scanFiles(dir: string, needles: readonly string[], label: string): { files: number; hits: CanaryHit[] } {
  const hits: CanaryHit[] = [];
  let files = 0;
  const walk = (at: string): void => {
    let names: string[];
    try {
      names = readdirSync(at).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(at, name);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) {
        files++;
        const bytes = readFileSync(p);
        const found = needles.find((n) => bytes.includes(n));
        if (found !== undefined) hits.push({ where: `${label}/${path.relative(dir, p)}`, found });
      }
    }
  };
  walk(dir);
  return { files, hits };
}

/** What the canary checks of a build saw. */
export interface CanaryLedger {
  /** Sandboxes of the gate's attempts checked (as many on every build: the manifest records it). */
  sandboxes: number;
  /** Sandboxes test-judged families' evaluations and validations worked in, checked when done (fewer where a cached verdict spared one). */
  testSandboxes: number;
  files: number;
  hits: CanaryHit[];
}

/**
 * A bare repository of gitgood's whose only objects are those of `objects` (through git's alternates),
 * so that git can say which objects a directory holds also where it is not a whole repository (a
 * sandbox's `.git` without refs, as a test sandbox's is). Removed by `close`.
 */
async function objectsOf(objects: string): Promise<{ repo: Repo; close: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-canary-objects-"));
  try {
    mkdirSync(path.join(dir, "refs"));
    mkdirSync(path.join(dir, "objects", "info"), { recursive: true });
    writeFileSync(path.join(dir, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(path.join(dir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
    writeFileSync(path.join(dir, "objects", "info", "alternates"), `${objects}\n`);
    const repo = await Repo.open(dir);
    return {
      repo,
      close: async () => {
        await repo.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Checks one sandbox: none of the canaries' objects is in gitgood's repository of it or in the `.git`
 * the agent sees, and no file of the sandbox (work tree, its `.git`, gitgood's private files) holds a
 * needle. Returns the number of files searched.
 */
async function checkSandbox(sandbox: Sandbox, where: string, canaries: readonly Canary[], ledger: CanaryLedger): Promise<number> {
  const ids = canaries.flatMap((c) => [c.commit, c.tree, c.blob]);
  // The `.git` a program in the sandbox is shown, written as it would be before the program ran.
  sandbox.writeView();
  const view = await objectsOf(path.join(sandbox.workDir, ".git", "objects"));
  try {
    for (const [label, repo] of [["gitgood's repository", sandbox.repo], ["the .git programs see", view.repo]] as const) {
      const kinds = await objectKinds(repo, ids);
      for (const [oid, kind] of kinds) if (kind !== "missing") ledger.hits.push({ where: `${where}: ${label}`, found: oid });
    }
  } finally {
    await view.close();
  }
  const scanned = scanFiles(sandbox.dir, canaryNeedles(canaries), where);
  ledger.hits.push(...scanned.hits);
  return scanned.files;
}

/**
 * What a build gives test-judged families as `watchSandbox`: every sandbox an evaluation or a validation worked in,
 * checked for the canaries before it is kept or removed.
 */
export function testSandboxWatcher(canaries: readonly Canary[], ledger: CanaryLedger): (sandbox: Sandbox, where: string) => Promise<void> {
  return async (sandbox, where) => {
    await checkSandbox(sandbox, where, canaries, ledger);
    ledger.testSandboxes++;
  };
}

/** An agent that checks its sandbox for the canaries before and after `inner` works it. */
export function watchedAgent(inner: Agent, canaries: readonly Canary[], ledger: CanaryLedger): Agent {
  return {
    name: inner.name,
    workTree: inner.workTree,
    metered: inner.metered,
    external: inner.external,
    supports: inner.supports?.bind(inner),
    prepare: inner.prepare?.bind(inner),
    async run(session) {
      const where = `sandbox of ${session.sample.id} ${session.definition.name}`;
      const check = async (): Promise<void> => {
        // Read the count after the check: `ledger.files += await …` would add to the value from before it, losing another attempt's files.
        const files = await checkSandbox(session.scenario.sandbox, where, canaries, ledger);
        ledger.files += files;
        ledger.sandboxes++;
      };
      await check();
      await inner.run(session);
      await check();
    },
  };
}

/** A digest of a token, what the manifest shows of it (the token itself is never written). */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
