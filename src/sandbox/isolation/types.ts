import type { Enforcement, JailLimits, LimitName } from "./limits.js";

/** Where an isolated program sees gitgood's shared directory of an attempt (the tool socket, the `gitgood` shim). */
export const SHARED_AT = "/run/gitgood";
/** The fresh, empty home directory of an isolated program. */
export const HOME_AT = "/home/agent";

/** The isolation in effect for the programs of a run or a task. */
export interface Isolation {
  /** The name of the backend (a registry name: namespace, docker, none). */
  readonly mode: string;
  /** Whether programs may reach the network (always true for `none`). */
  readonly network: boolean;
  /** The image the docker backend runs programs in. */
  readonly dockerImage: string;
  /** More paths programs may read, shown read-only at the same path. */
  readonly allowRead: readonly string[];
  /** Host variables agent programs get besides the allow-list (`--pass-env NAME`). */
  readonly passEnv: readonly string[];
  /** What each program may use, and how each limit is enforced here (absent: no limits, as before they existed). */
  readonly limits?: IsolationLimits;
  /** Whether a limit enforced weakly or not at all was accepted (`--accept-weak-limits`). */
  readonly acceptWeakLimits?: boolean;
}

/** The limits of an isolation and how this host enforces them. */
export interface IsolationLimits extends JailLimits {
  readonly enforcement: Enforcement;
}

/** How a backend enforces one limit: a line for the record, and whether it is weaker than the limit asks (per process, or not at all). */
export interface LimitEnforcement {
  how: string;
  weak: boolean;
}

/** What one isolated program gets: the work tree (its only writable directory), where it starts, and its environment. */
export interface Jail {
  work: string;
  cwd: string;
  /** gitgood's directory for the program, shown read-only at SHARED_AT. */
  shared?: string;
  env: NodeJS.ProcessEnv;
}

/** The process to start for one isolated program, and what to do once it has been killed (docker: remove the container). */
export interface IsolatedCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Clean-up once the program has been killed (docker: remove the container). */
  afterKill?: () => void;
  /** The limit the program ran into once it has ended (null: none), and the clean-up of what enforced it. */
  limits?: {
    /** The limit the program ran into (null: none). */
    hit(): LimitName | null;
    /** Removes what enforced the limits. */
    release(): Promise<void>;
  };
}

/**
 * One way of keeping the programs gitgood starts (agent programs, test runs, builds) from the rest of
 * the machine. A backend is one definition and one line in the registry (src/sandbox/isolation.ts);
 * nothing else names it.
 */
export interface IsolationBackend {
  /** The name `--isolation` takes and run.json records. */
  readonly name: string;
  /** One line for `--help`: what it is and what it needs. */
  readonly summary: string;
  /** Whether it runs programs in an image (`--docker-image`), which run.json then records. */
  readonly usesImage: boolean;
  /** False only for the backend that does not isolate at all (`none`): it is never chosen unless asked for by name. */
  readonly isolates: boolean;
  /** Null when it can run on this host, else one line saying why not (probed once per process). */
  unavailable(): string | null;
  /**
   * Starts the probe `unavailable` makes without holding the process, so that a caller overlaps it with its
   * other work; once the promise settles (it never rejects), `unavailable` answers without probing again.
   */
  probe?(): Promise<void>;
  /** The process that runs `argv` in `jail`; its `afterKill` is the clean-up after a kill. */
  command(iso: Isolation, jail: Jail, argv: readonly [string, ...string[]]): IsolatedCommand;
  /** How it enforces each of `limits` on this host. */
  enforcement(limits: JailLimits): Record<LimitName, LimitEnforcement>;
  /** The node an isolated program runs gitgood with (this process's, or the image's). */
  node(): string;
}

/** The last line a failed probe wrote, for a one-line reason. */
export function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "";
}

/** The environment an isolated program starts with: the caller's, with a fresh home and temporary directory. */
export function jailEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, HOME: HOME_AT, TMPDIR: "/tmp" };
}
