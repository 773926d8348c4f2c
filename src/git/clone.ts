import { GitGoodError } from "../errors.js";
import { runGit } from "./process.js";
import { Repo } from "./repo.js";
import { at } from "../util/at.js";

/**
 * Network settings for clone and fetch so that neither can hang: a transfer that moves less than one
 * byte a second for two minutes is aborted, and ssh never asks a question (git's own prompts are off
 * through GIT_TERMINAL_PROMPT=0 in every git process).
 */
function networkEnv(): Record<string, string | undefined> {
  return {
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "http.lowSpeedLimit",
    GIT_CONFIG_VALUE_0: "1",
    GIT_CONFIG_KEY_1: "http.lowSpeedTime",
    GIT_CONFIG_VALUE_1: "120",
    GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes -o ConnectTimeout=30",
  };
}

/** Where fetched-on-demand commits are kept reachable; not a branch namespace, so mining never sees them. */
export const FETCHED_REF_PREFIX = "refs/gitgood/fetched/";

/**
 * Makes a bare clone of `url` at `dest` (which must not exist) with every branch and all objects,
 * so that nothing is fetched later while mining or running scenarios.
 */
export async function cloneBare(url: string, dest: string, cwd: string): Promise<void> {
  await runGit(["clone", "--bare", "--quiet", "--", url, dest], { cwd, env: networkEnv() });
}

export type ObjectKind = "commit" | "tree" | "blob" | "tag" | "missing";

function kindOf(type: string): ObjectKind {
  return (["commit", "tree", "blob", "tag"].includes(type) ? type : "missing") as ObjectKind;
}

/** The kind of each object id in a repository, in one `cat-file --batch-check` process (or the repository's long-lived reader). */
export async function objectKinds(repo: Repo, oids: readonly string[]): Promise<Map<string, ObjectKind>> {
  const unique = [...new Set(oids)];
  const kinds = new Map<string, ObjectKind>();
  if (unique.length === 0) return kinds;
  const reader = repo.reader;
  if (reader) {
    const infos = await Promise.all(unique.map((oid) => reader.info(oid)));
    unique.forEach((oid, i) => kinds.set(oid, kindOf(infos[i]?.type ?? "missing")));
    return kinds;
  }
  const out = await repo.text(["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    input: `${unique.join("\n")}\n`,
  });
  const lines = out.split("\n").filter((l) => l !== "");
  if (lines.length !== unique.length) {
    throw new GitGoodError("GIT_FAILED", `git cat-file answered ${lines.length} lines for ${unique.length} objects`);
  }
  lines.forEach((line, i) => {
    kinds.set(at(unique, i), kindOf(line.slice(line.lastIndexOf(" ") + 1)));
  });
  return kinds;
}

interface FetchOutcome {
  fetched: string[];
  failed: { commit: string; reason: string }[];
}

function refspec(oid: string): string {
  return `+${oid}:${FETCHED_REF_PREFIX}${oid}`;
}

/**
 * Fetches commits by id from `url` into the repository, each kept under refs/gitgood/fetched/. All are
 * asked for at once; when that fails (one unknown id fails the whole fetch) each is asked for alone,
 * so the ones the remote has still arrive and the others are reported with git's reason.
 */
export async function fetchCommits(repo: Repo, url: string, oids: readonly string[]): Promise<FetchOutcome> {
  const unique = [...new Set(oids)];
  if (unique.length === 0) return { fetched: [], failed: [] };
  const fetchArgs = (ids: readonly string[]) => [
    "fetch",
    "--no-tags",
    "--no-write-fetch-head",
    "--quiet",
    "--",
    url,
    ...ids.map(refspec),
  ];
  const all = await repo.run(fetchArgs(unique), { okCodes: [0, 1, 128], env: networkEnv() });
  if (all.code === 0) return { fetched: unique, failed: [] };
  if (unique.length === 1) return { fetched: [], failed: [{ commit: at(unique, 0), reason: firstLine(all.stderr) }] };
  const outcome: FetchOutcome = { fetched: [], failed: [] };
  for (const oid of unique) {
    const one = await repo.run(fetchArgs([oid]), { okCodes: [0, 1, 128], env: networkEnv() });
    if (one.code === 0) outcome.fetched.push(oid);
    else outcome.failed.push({ commit: oid, reason: firstLine(one.stderr) });
  }
  return outcome;
}

function firstLine(stderr: string): string {
  const line = stderr.split("\n").find((l) => l.trim() !== "");
  return (line ?? "git fetch failed").replace(/^fatal:\s*/, "").trim();
}
