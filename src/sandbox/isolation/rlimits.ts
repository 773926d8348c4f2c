import { statSync } from "node:fs";
import path from "node:path";
import { cgroupEnforcement, JailGroup } from "./cgroup.js";
import type { JailLimits, LimitName } from "./limits.js";
import type { IsolatedCommand, IsolationLimits, LimitEnforcement } from "./types.js";

/** The first `name` on PATH, or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    try {
      if (statSync(path.join(dir, name)).isFile()) return path.join(dir, name);
    } catch {
      /* not here */
    }
  }
  return null;
}

/**
 * How limits are enforced on a program started on this host (the namespace backend): processes by a
 * pids cgroup (RLIMIT_NPROC counts a whole user's processes, and none at all for root, so it is not
 * used); memory by a memory cgroup (its out-of-memory kill names the limit), else by each process's
 * RLIMIT_DATA (weak: per process, and a refused allocation is the program's own error); disk by RLIMIT_FSIZE per file, the size of the jail's /tmp tmpfs and the work tree's watched
 * growth (exec.ts); CPU by RLIMIT_CPU per process. The rlimits are set by util-linux `prlimit`.
 */
export function hostEnforcement(limits: JailLimits): Record<LimitName, LimitEnforcement> {
  const prlimit = onPath("prlimit") !== null;
  const rl = (name: string): string | null => (prlimit ? name : null);
  const pids = cgroupEnforcement("pids");
  const memory = cgroupEnforcement("memory");
  const data = rl("RLIMIT_DATA per process");
  const fsize = rl("RLIMIT_FSIZE per file");
  const cpu = rl("RLIMIT_CPU per process");
  return {
    processes: pids ? { how: pids, weak: false } : { how: "none (no writable pids cgroup)", weak: true },
    memory: memory ? { how: memory, weak: false } : { how: data ?? "none (no writable memory cgroup, no prlimit)", weak: true },
    disk: { how: ["/tmp a tmpfs of that size", "the work tree's growth watched", ...(fsize ? [fsize] : [])].join(", "), weak: false },
    cpu: limits.cpu === null ? { how: "none asked", weak: false } : { how: cpu ?? "none (no prlimit)", weak: cpu === null },
  };
}

/** Seconds of CPU between SIGXCPU (the limit) and SIGKILL, for a process that ignores the signal. */
const CPU_GRACE_S = 5;

/** Joins the cgroups named (their count, then each `cgroup.procs`), then becomes the program; exit 125 when a join fails. */
const JOIN = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';

/**
 * `file args` under `limits`: in cgroups of its own (when the host has them) and with the rlimits set,
 * both before the program starts, so nothing it starts escapes them. The cgroups are removed with
 * `release` once the program has ended.
 */
export function limitedCommand(limits: IsolationLimits, file: string, args: readonly string[], env: NodeJS.ProcessEnv): IsolatedCommand {
  const how = limits.enforcement;
  const rlimits: string[] = [];
  if (how.memory.includes("RLIMIT_DATA")) rlimits.push(`--data=${limits.memory}`);
  if (how.disk.includes("RLIMIT_FSIZE")) rlimits.push(`--fsize=${limits.disk}`);
  if (limits.cpu !== null && how.cpu.includes("RLIMIT_CPU")) rlimits.push(`--cpu=${limits.cpu}:${limits.cpu + CPU_GRACE_S}`);
  const group = JailGroup.make({
    ...(how.processes.startsWith("cgroup") ? { processes: limits.processes } : {}),
    ...(how.memory.startsWith("cgroup") ? { memory: limits.memory } : {}),
  });
  const procs = group.procs;
  const inner = rlimits.length > 0 ? ["prlimit", ...rlimits, "--", file, ...args] : [file, ...args];
  return {
    file: "sh",
    args: ["-c", JOIN, "gitgood-limits", String(procs.length), ...procs, ...inner],
    env,
    limits: { hit: () => group.hit(), release: () => group.remove() },
  };
}
