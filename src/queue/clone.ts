import path from "node:path";
import { fileURLToPath } from "node:url";
import { splitRepositoryName } from "../dataset/clones.js";
import { checkUrlPattern, fetchRepositories, repositoryUrl } from "../dataset/repos.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";

/** The remotes a worker clones from: URLs of these schemes, or the scp-like `user@host:path` of ssh. */
const SCHEMES = new Set(["https:", "http:", "ssh:", "git:", "file:"]);
const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)[^:]/;

function refusedPattern(pattern: string, why: string): GitGoodError {
  return new GitGoodError("BAD_OPTION", `--url-pattern ${pattern} is not a remote a worker clones from (${why}); give https://, ssh://, git://, user@host:path or file:///DIR/{name}`);
}

/**
 * Checks a worker's `--url-pattern` once, at its start. The pattern is the user's; what fills it in, the
 * sample's `owner/repo`, comes with a job from Redis and is not. So the pattern must be a URL of a
 * plain transport (https, http, ssh, git, or scp-like ssh), or `file://` for a directory of local
 * repositories the user names; git's remote helpers (`ext::`, `fd::`, any `X::`), options and bare local
 * paths are refused in one line. Returns the directory a `file://` pattern confines clones to, else null.
 */
export function checkClonePattern(pattern: string): string | null {
  checkUrlPattern(pattern);
  if (pattern.startsWith("-")) throw refusedPattern(pattern, "it starts with '-'");
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(pattern)) throw refusedPattern(pattern, "git remote helpers are not taken");
  if (SCP_LIKE.test(pattern)) return null;
  let url: URL;
  try {
    url = new URL(pattern.replaceAll("{name}", "o/r").replaceAll("{owner}", "o").replaceAll("{repo}", "r"));
  } catch {
    throw refusedPattern(pattern, "it is not a URL; a local directory is file:///DIR/{name}");
  }
  if (!SCHEMES.has(url.protocol)) throw refusedPattern(pattern, `the scheme ${url.protocol.replace(/:$/, "")} is not taken`);
  if (url.protocol !== "file:") return null;
  if (url.host !== "") throw refusedPattern(pattern, "a file:// URL names no host");
  // The fixed part of the path, before the first placeholder: every clone URL stays under it.
  const fixed = pattern.slice("file://".length, Math.min(...["{name}", "{owner}", "{repo}"].map((p) => pattern.indexOf(p)).filter((i) => i >= 0)));
  const base = fixed.endsWith("/") ? fixed : path.dirname(fixed);
  if (!path.isAbsolute(base)) throw refusedPattern(pattern, "a file:// URL needs an absolute path");
  return path.resolve(base);
}

/**
 * The clone URL of a sample's repository under a checked pattern: its name must be `owner/repo` (each
 * part letters, digits, '.', '_', '-', not '.' or '..'), and a `file://` URL must stay in `root`.
 */
export function cloneUrlOf(pattern: string, root: string | null, sample: Sample): string {
  return cloneUrlFor(pattern, root, sample.name, `sample ${sample.id}`);
}

/** The clone URL of the repository `name` (`owner/repo`) under a checked pattern, as `cloneUrlOf`; `who` names the asker in errors. */
export function cloneUrlFor(pattern: string, root: string | null, name: string, who: string): string {
  if (!splitRepositoryName(name)) throw new GitGoodError("BAD_SAMPLE", `${who} names no owner/repo: '${name.slice(0, 200)}'`);
  const url = repositoryUrl(pattern, name);
  if (root !== null) {
    const local = path.resolve(fileURLToPath(url));
    if (local !== root && !local.startsWith(`${root}${path.sep}`)) {
      throw new GitGoodError("BAD_SAMPLE", `${who}'s repository ${name} would be cloned from outside ${root}`);
    }
  }
  return url;
}

/**
 * Clones (or fetches into) `into` the repository a sample needs, by `pattern`, once per repository at a
 * time: the worker's jobs of one repository wait for the same clone. A remote that cannot be cloned, or
 * lacks the sample's commits, is CLONE_FAILED in one line (an infrastructure failure: the job is retried,
 * elsewhere when another worker is there).
 */
export function cloner(into: string, pattern: string): (sample: Sample) => Promise<void> {
  const root = checkClonePattern(pattern);
  const busy = new Map<string, Promise<void>>();
  return async (sample) => {
    const url = cloneUrlOf(pattern, root, sample);
    const before = busy.get(sample.name) ?? Promise.resolve();
    const mine = before.then(async () => {
      const report = await fetchRepositories([sample], { into, urlPattern: pattern, jobs: 1 });
      const failed = report.repositories.find((r) => r.status === "failed");
      if (failed) {
        const why = (failed.error ?? "the clone failed").split("\n").find((l) => l.trim() !== "") ?? "the clone failed";
        throw new GitGoodError("CLONE_FAILED", `this worker could not clone ${sample.name} from ${url}: ${why.trim()}`, { url });
      }
    });
    busy.set(sample.name, mine.catch(() => undefined));
    await mine;
  };
}
