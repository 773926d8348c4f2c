import { createHash } from "node:crypto";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { cacheRoot } from "../util/cache-root.js";
import { takeLock } from "../util/lock.js";
import type { EnvSpec, EnvTarget } from "./types.js";

export { cacheRoot };

/** Where environments are cached below a cache root. */
export function envsDir(root = cacheRoot()): string {
  return path.join(root, "envs");
}

function slug(text: string): string {
  const s = text.replace(/[^A-Za-z0-9._]+/g, "_").replace(/^[._]+/, "").slice(0, 40);
  return s === "" ? "x" : s;
}

/** A stable JSON text: object keys sorted at every level. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The parts of a spec that change what a build makes (not how tests are run in it). */
function buildPart(spec: EnvSpec): Partial<EnvSpec> {
  const { kind, python, setup, editable, env, network } = spec;
  return { kind, python, setup, editable, env, network };
}

/**
 * The cache key of an environment: repository, version and a hash of what the build depends on (the
 * spec's build fields and the interpreter it starts from), so that changing only the test command
 * reuses the environment.
 */
export function envKey(target: EnvTarget, spec: EnvSpec, interpreter: string | null): string {
  const hash = createHash("sha256").update(canonical({ target, build: buildPart(spec), interpreter })).digest("hex").slice(0, 16);
  return `${slug(target.repo)}-${slug(target.version ?? "any")}-${hash}`;
}

/**
 * Takes the build lock `file`, waiting while a live process holds it (a lock whose process is gone is
 * taken over), for at most `waitSeconds`. Returns the release function.
 */
export function takeBuildLock(file: string, waitSeconds: number, signal?: AbortSignal): Promise<() => void> {
  return takeLock(file, {
    waitMs: waitSeconds * 1000,
    ...(signal ? { signal } : {}),
    busy: (holder) =>
      new GitGoodError("ENV_BUILD_FAILED", `process ${holder.pid} is still building this environment (lock ${file}); try again when it ends`, {
        file,
        holder: holder.pid,
      }),
    aborted: () => new GitGoodError("ABORTED", "cancelled while waiting for another process to build the environment"),
    notALock: () => new GitGoodError("LOCK_FAILED", `${file} is not a lock gitgood wrote; delete it if no environment build is running`, { file }),
    cannotCreate: (code) => new GitGoodError("LOCK_FAILED", `cannot create the environment lock ${file}: ${code}`, { file }),
  });
}
