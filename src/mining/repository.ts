import path from "node:path";
import { projectSizeOf, type RepositoryFields } from "../dataset/sample.js";
import { configValue } from "../git/config.js";
import { symbolicRef } from "../git/refs.js";
import type { Repo } from "../git/repo.js";
import { countMatchingLines, listFiles, readBlob } from "../git/trees.js";
import { LANGUAGE_DISPLAY, LANGUAGE_EXTENSIONS, type LanguageSet } from "../dataset/languages.js";
import { detectLicense, LICENSE_FILE } from "./license.js";
import type { RepositoryMetadata } from "./metadata.js";

interface RepositoryFacts {
  fields: RepositoryFields;
  /** Revision the default branch resolves to (used for size and language), or null. */
  defaultRev: string | null;
  /** Non-blank lines in source files at the default branch, or null when they could not be read. */
  linesOfCode: number | null;
}

/** `owner/repo` from a remote URL (https, ssh, scp-like, file), or null. */
export function nameFromRemoteUrl(url: string): string | null {
  const cleaned = url.trim().replace(/\/+$/, "").replace(/\.git$/, "");
  const m = /[/:]([^/:]+)\/([^/:]+)$/.exec(cleaned);
  return m ? `${m[1]}/${m[2]}` : null;
}

/**
 * Whether a remote URL names a hosted repository (a scheme other than `file://`, or scp-like
 * `host:owner/name`) rather than a path on this machine, whose last two folders name nothing.
 */
export function isHostedUrl(url: string): boolean {
  const u = url.trim();
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(u);
  if (scheme) return scheme[1]?.toLowerCase() !== "file";
  // git reads `host:path` as ssh only when no slash comes before the colon (and not `C:\…`).
  return /^[^/\\:]{2,}:/.test(u);
}

/** The name a repository is mined under, and whether it was guessed from its folder for want of a hosted origin. */
export interface RepositoryName {
  name: string;
  fromFolder: boolean;
}

/** `owner/name` from a hosted origin remote URL, else the folder name (`fromFolder`). */
export async function repositoryName(repo: Repo): Promise<RepositoryName> {
  const url = await configValue(repo, "remote.origin.url");
  const fromUrl = url && isHostedUrl(url) ? nameFromRemoteUrl(url) : null;
  if (fromUrl) return { name: fromUrl, fromFolder: false };
  return { name: path.basename(repo.dir).replace(/\.git$/, "") || "repository", fromFolder: true };
}

/** Why a name guessed from the folder is a poor one, for a warning or a refusal. */
export function folderNameProblem(name: string): string {
  return `no hosted origin remote names this repository, so it would be named '${name}' after its folder`;
}

async function defaultBranch(repo: Repo): Promise<{ name: string | null; rev: string | null }> {
  const originHead = await symbolicRef(repo, "refs/remotes/origin/HEAD");
  if (originHead?.startsWith("refs/remotes/origin/") && (await repo.resolve(originHead))) {
    return { name: originHead.slice("refs/remotes/origin/".length), rev: originHead };
  }
  const head = await symbolicRef(repo, "HEAD");
  if (head?.startsWith("refs/heads/") && (await repo.resolve(head))) {
    return { name: head.slice("refs/heads/".length), rev: head };
  }
  return { name: null, rev: (await repo.resolve("HEAD")) ? "HEAD" : null };
}

/** Counts non-blank lines of every source file (any known language) at `rev`, in one `git grep`. */
async function countLinesOfCode(repo: Repo, rev: string): Promise<number | null> {
  const specs = Object.values(LANGUAGE_EXTENSIONS)
    .flat()
    .map((ext) => `*${ext}`);
  try {
    return await countMatchingLines(repo, rev, "[^[:space:]]", specs);
  } catch {
    return null; // e.g. blobs missing from a partial clone
  }
}

async function licenseAt(repo: Repo, rev: string, rootFiles: readonly string[]): Promise<string | null> {
  const candidates = rootFiles.filter((f) => !f.includes("/") && LICENSE_FILE.test(f)).sort();
  for (const file of candidates) {
    const blob = await readBlob(repo, rev, file);
    if (!blob) continue;
    const id = detectLicense(blob.toString("utf8"));
    if (id) return id;
  }
  return null;
}

/**
 * The repository-level sample fields. Metadata given by the user wins; what it lacks is read from
 * the repository at its default branch (license file, dominant language, lines of code).
 */
export async function describeRepository(
  repo: Repo,
  opts: { name?: string; metadata: RepositoryMetadata; languages: LanguageSet },
): Promise<RepositoryFacts> {
  const name = opts.name ?? (await repositoryName(repo)).name;
  const branch = await defaultBranch(repo);
  const md = opts.metadata;
  let files: string[] = [];
  let linesOfCode: number | null = null;
  if (branch.rev) {
    files = await listFiles(repo, branch.rev);
    linesOfCode = await countLinesOfCode(repo, branch.rev);
  }
  let language = md.language;
  if (!language) {
    const counts = new Map<string, number>();
    for (const f of files) {
      const lang = opts.languages.languageOf(f);
      if (lang) counts.set(lang, (counts.get(lang) ?? 0) + 1);
    }
    let best: string | null = null;
    for (const lang of opts.languages.names) {
      if ((counts.get(lang) ?? 0) > (best ? (counts.get(best) ?? 0) : 0)) best = lang;
    }
    language = best ? (LANGUAGE_DISPLAY[best] ?? best) : null;
  }
  const license = md.license ?? (branch.rev ? await licenseAt(repo, branch.rev, files) : null);
  return {
    defaultRev: branch.rev,
    linesOfCode,
    fields: {
      name,
      default_branch: branch.name,
      license,
      stargazers: md.stargazers,
      created_at: md.created_at,
      topics: md.topics,
      programming_language: language,
      project_size: linesOfCode === null ? null : projectSizeOf(linesOfCode),
    },
  };
}
