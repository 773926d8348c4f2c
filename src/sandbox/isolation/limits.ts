import { GitGoodError } from "../../errors.js";

/** The resources a jail may use, each named as `LIMIT_EXCEEDED` names it. */
export const LIMIT_NAMES = ["processes", "memory", "disk", "cpu"] as const;
/** One of `LIMIT_NAMES`: a resource a jail limits. */
export type LimitName = (typeof LIMIT_NAMES)[number];

/** What the programs of one attempt may use. */
export interface JailLimits {
  /** Processes and threads at once in one program's jail. */
  readonly processes: number;
  /** Bytes of memory: the jail's together where a memory cgroup is writable, else each process's data. */
  readonly memory: number;
  /** Bytes the work tree may grow by, and the size of the jail's `/tmp`. */
  readonly disk: number;
  /** Seconds of CPU each process may use (a run gives its time limit); null: none. */
  readonly cpu: number | null;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const DEFAULT_LIMITS: JailLimits = { processes: 512, memory: 4 * GiB, disk: 2 * GiB, cpu: null };

const UNITS: Record<string, number> = { "": 1, k: 1024, m: MiB, g: GiB, t: 1024 * GiB };

/** Parses a size option (`512M`, `4G`, `1048576`; K, M, G, T are powers of 1024) into bytes, with a one-line error naming the option. */
export function sizeOption(name: string): (value: string) => number {
  return (value: string) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(value);
    const unit = UNITS[(m?.[2] ?? "").toLowerCase()];
    const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : NaN;
    if (!Number.isSafeInteger(bytes) || bytes < MiB) {
      throw new GitGoodError("BAD_OPTION", `${name} takes a size of at least 1M (a number of bytes, or with K, M, G or T), not '${value}'`);
    }
    return bytes;
  };
}

/** A size for people: `4G`, `512M`, `1536K`. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [["T", 1024 * GiB], ["G", GiB], ["M", MiB], ["K", 1024]] as const) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}`;
}

/** How each limit is enforced here, for the record and for people (`none` when it is not). */
export type Enforcement = Record<LimitName, string>;
