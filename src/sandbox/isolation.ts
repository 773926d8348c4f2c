import { existsSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { DEFAULT_DOCKER_IMAGE, dockerBackend } from "./isolation/docker.js";
import { namespaceBackend } from "./isolation/namespace.js";
import { noneBackend } from "./isolation/none.js";
import { DEFAULT_LIMITS, formatSize, LIMIT_NAMES, type Enforcement, type JailLimits, type LimitName } from "./isolation/limits.js";
import type { IsolatedCommand, Isolation, IsolationBackend, IsolationLimits, Jail } from "./isolation/types.js";
import { at } from "../util/at.js";

export { HOME_AT, SHARED_AT, type IsolatedCommand, type Isolation, type IsolationBackend, type IsolationLimits, type Jail } from "./isolation/types.js";
export { DEFAULT_LIMITS, LIMIT_NAMES, formatSize, sizeOption, type Enforcement, type JailLimits, type LimitName } from "./isolation/limits.js";
export { passwdStandIn } from "./isolation/etc.js";
export { DEFAULT_DOCKER_IMAGE, dockerArgs, dockerUnavailable } from "./isolation/docker.js";
export { bwrapArgs, bwrapUnavailable } from "./isolation/namespace.js";

/**
 * The isolation backends, the first the default. A built-in backend is one file in ./isolation/ and one
 * line here; a plug-in adds its own with `registerIsolation`. Nothing else names a backend.
 */
const BACKENDS: IsolationBackend[] = [];

const BACKEND_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * Adds an isolation backend; `--isolation NAME` then takes its name. Its name must be new, and a backend
 * that says it isolates must say why it cannot run where it cannot (`unavailable`), which makes gitgood
 * refuse it there rather than run programs unisolated.
 */
export function registerIsolation(backend: IsolationBackend): void {
  if (!BACKEND_NAME.test(backend.name)) throw new GitGoodError("INTERNAL", `isolation backend name '${backend.name}' must be lower-case letters, digits and '-'`);
  if (BACKENDS.some((b) => b.name === backend.name)) throw new GitGoodError("INTERNAL", `an isolation backend named ${backend.name} is registered already`);
  BACKENDS.push(backend);
}

/** Removes a backend added with `registerIsolation` (the default, the first, stays). */
export function unregisterIsolation(name: string): void {
  const i = BACKENDS.findIndex((b) => b.name === name);
  if (i > 0) BACKENDS.splice(i, 1);
}

for (const backend of [namespaceBackend, dockerBackend, noneBackend]) registerIsolation(backend);

/** The names `--isolation` takes: the registered backends'. */
export function isolationModes(): readonly string[] {
  return BACKENDS.map((b) => b.name);
}
/** The name of an isolation backend (`bwrap`, `docker`, a plug-in's name). */
export type IsolationMode = string;

/** The isolation `--isolation` picks when not given. */
export const DEFAULT_ISOLATION: IsolationMode = at(BACKENDS, 0).name;

/** One line per backend for `--help`. */
export function isolationHelp(): string {
  return BACKENDS.map((b) => `${b.name} (${b.summary})`).join("; ");
}

/** The registered backend of a name, or a one-line error listing the names. */
export function isolationBackend(mode: string): IsolationBackend {
  const backend = BACKENDS.find((b) => b.name === mode);
  if (!backend) throw new GitGoodError("BAD_OPTION", `--isolation takes ${isolationModes().join(", ")}, not '${mode}'`);
  return backend;
}

/** What `chooseIsolation` is asked for: the isolation mode, what the program may reach, and the limits it runs under. */
export interface IsolationRequest {
  mode: IsolationMode;
  /** Let the program reach the network (isolating backends cut it off otherwise). */
  network?: boolean;
  /** The image docker isolation runs programs in. */
  dockerImage?: string;
  /** More paths the program may read (its own installation, say), shown read-only at the same path. */
  allowRead?: readonly string[];
  /** Host variables agent programs get besides the allow-list. */
  passEnv?: readonly string[];
  /** What each program may use (default: DEFAULT_LIMITS). */
  limits?: Partial<JailLimits>;
  /** Run even where a limit can be enforced only weakly (per process) or not at all; else that is refused. */
  acceptWeakLimits?: boolean;
}

/** The option that sets each limit, for refusals. */
const LIMIT_OPTION: Record<LimitName, (l: JailLimits) => string> = {
  processes: (l) => `--max-processes ${l.processes}`,
  memory: (l) => `--max-memory ${formatSize(l.memory)}`,
  disk: (l) => `--max-disk ${formatSize(l.disk)}`,
  cpu: (l) => `--timeout ${String(l.cpu)} (CPU time per process)`,
};

/** The limits asked for with how `backend` enforces them here; refused in one line when one would be weak and that was not accepted. */
function limitsFor(backend: IsolationBackend, request: IsolationRequest): IsolationLimits {
  const limits: JailLimits = { ...DEFAULT_LIMITS, ...request.limits };
  const how = backend.enforcement(limits);
  const weak = LIMIT_NAMES.find((n) => how[n].weak);
  if (weak !== undefined && backend.isolates && request.acceptWeakLimits !== true) {
    throw new GitGoodError(
      "LIMIT_UNENFORCEABLE",
      `${LIMIT_OPTION[weak](limits)} cannot be enforced by --isolation ${backend.name} here (only: ${how[weak].how}); pass --accept-weak-limits to run with that`,
      { limit: weak, enforcement: how[weak].how },
    );
  }
  const enforcement = Object.fromEntries(LIMIT_NAMES.map((n) => [n, how[n].how])) as Enforcement;
  return { ...limits, enforcement };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Starts the probe of the backend named `mode` (where it has one) without waiting: a caller that will
 * `chooseIsolation` later overlaps the probe with its other work. Never rejects; a name no backend has is
 * left to `chooseIsolation` to refuse.
 */
export function probeIsolation(mode: string): Promise<void> {
  return BACKENDS.find((b) => b.name === mode)?.probe?.() ?? Promise.resolve();
}

/**
 * The isolation for a request, which must be able to run on this host: when it cannot (bubblewrap
 * present but unable to make namespaces, no Docker daemon) it is refused in one line that says why and
 * how to choose another — it never quietly becomes `none`. Paths in `allowRead` must exist.
 */
export function chooseIsolation(request: IsolationRequest): Isolation {
  const backend = isolationBackend(request.mode);
  const allowRead = (request.allowRead ?? []).map((p) => path.resolve(p));
  for (const p of allowRead) {
    if (!existsSync(p)) throw new GitGoodError("NOT_FOUND", `--allow-read ${p}: no such file or directory`, { path: p });
  }
  const passEnv = [...new Set(request.passEnv ?? [])];
  const badName = passEnv.find((n) => !ENV_NAME.test(n));
  if (badName !== undefined) throw new GitGoodError("BAD_OPTION", `--pass-env takes a variable name, not '${badName}'`);
  const why = backend.unavailable();
  if (why !== null) {
    const others = BACKENDS.filter((b) => b !== backend && b.isolates).map((b) => `--isolation ${b.name}`);
    throw new GitGoodError(
      "ISOLATION_UNAVAILABLE",
      `--isolation ${backend.name} cannot run here (${why}); choose ${[...others, "--isolation none (agent programs then run unisolated, as your user)"].join(" or ")}`,
      { mode: backend.name, reason: why },
    );
  }
  return {
    mode: backend.name,
    network: backend.isolates ? request.network === true : true,
    dockerImage: request.dockerImage ?? DEFAULT_DOCKER_IMAGE,
    allowRead,
    passEnv,
    limits: limitsFor(backend, request),
    acceptWeakLimits: request.acceptWeakLimits === true,
  };
}

/**
 * The isolation sandboxes use unless told otherwise: the default backend, refused where it cannot run,
 * with the default limits as far as this host enforces them (a run's agent programs get theirs from
 * its flags, which refuse weak ones).
 */
export function defaultIsolation(): Isolation {
  return chooseIsolation({ mode: DEFAULT_ISOLATION, acceptWeakLimits: true });
}

/** Whether the backend named `mode` keeps programs from the host; false for `none` and for a name this version does not know. */
export function modeIsolates(mode: string): boolean {
  return BACKENDS.find((b) => b.name === mode)?.isolates === true;
}

/** Whether programs run under `iso` are kept from the host (every backend but `none`). */
export function isolates(iso: Isolation): boolean {
  return isolationBackend(iso.mode).isolates;
}

/** The image programs run in, for backends that use one (docker); else null. */
export function imageOf(iso: Isolation): string | null {
  return isolationBackend(iso.mode).usesImage ? iso.dockerImage : null;
}

/** The process that runs `argv` in the jail under `iso`. */
export function isolatedCommand(iso: Isolation, jail: Jail, argv: readonly string[]): IsolatedCommand {
  const [file, ...rest] = argv;
  if (!file) throw new GitGoodError("BAD_ARGUMENTS", "exec needs a program to run");
  return isolationBackend(iso.mode).command(iso, jail, [file, ...rest]);
}

/** The node an isolated program runs gitgood with: this process's, or in a container the image's. */
export function nodeCommand(iso: Isolation): string {
  return isolationBackend(iso.mode).node();
}

/** One line for people when programs run without isolation (which only `--isolation none` asks for); null when they are isolated. */
export function isolationNote(iso: Isolation): string | null {
  if (isolates(iso)) return null;
  return `isolation: ${iso.mode} (asked for); agent programs run without isolation: they can read and write whatever your user can, and use the network`;
}

/** The error of an attempt a program of which ran into `limit` of `iso`. */
export function limitExceeded(iso: Isolation, limit: LimitName): GitGoodError {
  const l = iso.limits;
  const value = !l ? "" : limit === "processes" ? ` of ${l.processes}` : limit === "cpu" ? ` of ${String(l.cpu)} s` : ` of ${formatSize(l[limit])}`;
  return new GitGoodError("LIMIT_EXCEEDED", `a program of the attempt ran into its ${limit} limit${value} and was stopped`, { limit });
}
