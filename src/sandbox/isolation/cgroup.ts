import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { LimitName } from "./limits.js";
import { processAlive } from "../../util/processes.js";

/** The cgroup controllers a jail's group uses: one bounds its processes, the other its memory. */
type Controller = "pids" | "memory";

/** Where groups of one controller are made: the directory of this process's own group (or the hierarchy's root). */
interface Hierarchy {
  readonly controller: Controller;
  readonly version: 1 | 2;
  readonly parent: string;
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/** This process's group per hierarchy, from /proc/self/cgroup: controller list (empty for v2) → path. */
function ownGroups(): Map<string, string> {
  const out = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return out;
  }
  for (const line of text.split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m?.[2] !== undefined) for (const c of (m[1] ?? "").split(",")) out.set(c.replace(/^name=/, ""), m[2]);
  }
  return out;
}

function read(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Whether a group can be made below `parent` with the controller's limit file in it (tried: made, then removed). */
function writable(parent: string, limitFile: string): boolean {
  const probe = path.join(parent, `gitgood-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    return existsSync(path.join(probe, limitFile));
  } finally {
    try {
      rmdirSync(probe);
    } catch {
      /* left for the hierarchy's owner: an empty group */
    }
  }
}

const LIMIT_FILE: Record<1 | 2, Record<Controller, string>> = {
  1: { pids: "pids.max", memory: "memory.limit_in_bytes" },
  2: { pids: "pids.max", memory: "memory.max" },
};

/** The cgroup v2 hierarchy and this process's group in it, when one is mounted. */
function unified(own: Map<string, string>): string | null {
  const rel = own.get("");
  if (rel === undefined) return null;
  for (const mount of [CGROUP_ROOT, path.join(CGROUP_ROOT, "unified")]) {
    if (existsSync(path.join(mount, "cgroup.controllers"))) {
      const dir = path.join(mount, rel);
      return existsSync(dir) ? dir : mount;
    }
  }
  return null;
}

/** Where this host lets gitgood make a group with `controller`: cgroup v2 where its controller can be delegated, else v1; null when neither is writable. */
function findHierarchy(controller: Controller, own: Map<string, string>): Hierarchy | null {
  const v2 = unified(own);
  if (v2 !== null && read(path.join(v2, "cgroup.controllers")).split(/\s+/).includes(controller)) {
    if (!read(path.join(v2, "cgroup.subtree_control")).split(/\s+/).includes(controller)) {
      try {
        writeFileSync(path.join(v2, "cgroup.subtree_control"), `+${controller}`);
      } catch {
        /* a group with processes of its own cannot delegate: then v1, if any */
      }
    }
    if (writable(v2, LIMIT_FILE[2][controller])) return { controller, version: 2, parent: v2 };
  }
  const mount = path.join(CGROUP_ROOT, controller);
  if (existsSync(path.join(mount, "cgroup.procs")) && !existsSync(path.join(mount, "cgroup.controllers"))) {
    const rel = own.get(controller);
    const inOwn = rel !== undefined ? path.join(mount, rel) : mount;
    const parent = existsSync(inOwn) ? inOwn : mount;
    if (writable(parent, LIMIT_FILE[1][controller])) return { controller, version: 1, parent };
  }
  return null;
}

let found: Map<Controller, Hierarchy> | undefined;

/** The hierarchies this host lets gitgood use (probed once per process). */
function hierarchies(): Map<Controller, Hierarchy> {
  if (found) return found;
  const own = ownGroups();
  found = new Map();
  for (const c of ["pids", "memory"] as const) {
    const h = findHierarchy(c, own);
    if (h) {
      found.set(c, h);
      sweepDeadGroups(h.parent);
    }
  }
  return found;
}

/** The groups gitgood makes: `gitgood-PID-N` (a jail's) and `gitgood-probe-PID`. */
const GROUP_NAME = /^gitgood-(?:probe-)?(\d+)(?:-\d+)?$/;

/** Removes the groups below `parent` that a gitgood process killed before it could remove them left (their process is gone). */
function sweepDeadGroups(parent: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = GROUP_NAME.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !processAlive(Number(pid))) removeGroup(path.join(parent, name));
  }
}

/** The directories this host lets gitgood make groups in (for tests and diagnostics). */
export function cgroupParents(): string[] {
  return [...hierarchies().values()].map((h) => h.parent);
}

/** How a limit of `controller` is enforced here ("cgroup v1 pids"), or null when no group with it can be made. */
export function cgroupEnforcement(controller: Controller): string | null {
  const h = hierarchies().get(controller);
  return h ? `cgroup v${h.version} ${controller}` : null;
}

let groups = 0;

/** A value of a "key N" line in a cgroup file (pids.events, memory.events, memory.oom_control). */
function counter(file: string, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, "m").exec(read(file));
  return m?.[1] !== undefined ? Number(m[1]) : 0;
}

/**
 * The groups of one program's jail, one per hierarchy: processes bounded by `pids.max`, memory by the
 * memory limit (swap too where the host accounts it). Its programs join it before they start (`procs`).
 */
export class JailGroup {
  private constructor(private readonly dirs: ReadonlyMap<Controller, { dir: string; version: 1 | 2 }>) {}

  /** Makes the groups for the limits given (a controller absent here is skipped: the caller has checked); throws when one cannot be made. */
  static make(limits: { processes?: number; memory?: number }): JailGroup {
    const name = `gitgood-${process.pid}-${++groups}`;
    const dirs = new Map<Controller, { dir: string; version: 1 | 2 }>();
    const group = new JailGroup(dirs);
    try {
      for (const [controller, value] of [["pids", limits.processes], ["memory", limits.memory]] as const) {
        const h = hierarchies().get(controller);
        if (value === undefined || !h) continue;
        const dir = path.join(h.parent, name);
        mkdirSync(dir);
        dirs.set(controller, { dir, version: h.version });
        writeFileSync(path.join(dir, LIMIT_FILE[h.version][controller]), String(value));
        const swap = path.join(dir, h.version === 1 ? "memory.memsw.limit_in_bytes" : "memory.swap.max");
        if (controller === "memory" && existsSync(swap)) writeFileSync(swap, h.version === 1 ? String(value) : "0");
      }
    } catch (err) {
      void group.remove();
      throw err;
    }
    return group;
  }

  /** The `cgroup.procs` files a program writes its process id to, to join the groups. */
  get procs(): string[] {
    return [...this.dirs.values()].map(({ dir }) => path.join(dir, "cgroup.procs"));
  }

  /** The limit the group's processes ran into: a fork refused for the process limit, or a process killed for memory. */
  hit(): LimitName | null {
    const pids = this.dirs.get("pids");
    if (pids && counter(path.join(pids.dir, "pids.events"), "max") > 0) return "processes";
    const memory = this.dirs.get("memory");
    if (memory && counter(path.join(memory.dir, memory.version === 1 ? "memory.oom_control" : "memory.events"), "oom_kill") > 0) return "memory";
    return null;
  }

  /**
   * Kills whatever is left in the groups and removes them. A process just killed may take a moment to
   * leave its group: removal is tried again every REMOVE_RETRY_MS for REMOVE_WITHIN_MS (resolving once
   * done), and a group still there then is tried once more when this process exits.
   */
  async remove(): Promise<void> {
    let left = [...this.dirs.values()].map(({ dir }) => dir);
    const deadline = Date.now() + REMOVE_WITHIN_MS;
    for (;;) {
      left = left.filter((dir) => !removeGroup(dir));
      if (left.length === 0) return;
      if (Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, REMOVE_RETRY_MS));
    }
    if (leftAtExit.length === 0) process.once("exit", () => leftAtExit.forEach(removeGroup));
    leftAtExit.push(...left);
  }
}

const REMOVE_RETRY_MS = 20;
const REMOVE_WITHIN_MS = 5_000;

/** Groups still busy after REMOVE_WITHIN_MS, tried again when this process exits. */
const leftAtExit: string[] = [];

/** Kills the processes of the group at `dir` and removes it; false when it is still busy. */
function removeGroup(dir: string): boolean {
  for (const pid of read(path.join(dir, "cgroup.procs")).split("\n").filter(Boolean)) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      /* gone already */
    }
  }
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}
