import { spawn, spawnSync } from "node:child_process";
import { lstatSync, mkdtempSync, readlinkSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { etcArgs } from "./etc.js";
import { programPaths, SYSTEM_DIRS } from "./mounts.js";
import { hostEnforcement, limitedCommand } from "./rlimits.js";
import { HOME_AT, SHARED_AT, jailEnv, lastLine, type Isolation, type IsolationBackend, type Jail } from "./types.js";
import { errnoCode } from "../../util/errno.js";

/** The parts of a repository's git directory that make git run programs, which gitgood's own git calls read. */
const GIT_GUARDED = ["config", "hooks", "info"];

function isRealDirectory(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Mounts that keep a program from planting commands for gitgood's own git calls in the work tree's
 * repository (core.fsmonitor, filter or diff drivers, hooks, attributes), which run outside the jail:
 * `.git` becomes a mount point (it cannot be renamed, removed or replaced), and its config, hooks and
 * info are read-only. Everything else there (objects, refs, index, HEAD) stays writable, so the program
 * can still commit, rebase and merge. Nothing when the work tree has no `.git` directory.
 */
function gitGuard(work: string): string[] {
  const gitDir = path.join(work, ".git");
  if (!isRealDirectory(gitDir)) return [];
  const args = ["--bind", gitDir, gitDir];
  for (const name of GIT_GUARDED) {
    const p = path.join(gitDir, name);
    try {
      const st = lstatSync(p);
      if (st.isFile() || st.isDirectory()) args.push("--ro-bind", p, p);
    } catch {
      /* absent: nothing to guard */
    }
  }
  return args;
}

/**
 * The bubblewrap arguments (before `--` and the program) that give a program the jail and nothing else.
 * Not `--new-session`: bubblewrap starts in a session of its own without a terminal (exec.ts), and
 * setting up the namespace happens before its `--die-with-parent` takes hold inside, so everything must
 * stay in the process group that a kill reaches.
 */
export function bwrapArgs(iso: Isolation, jail: Jail): string[] {
  const args = ["--unshare-all", ...(iso.network ? ["--share-net"] : []), "--die-with-parent"];
  for (const dir of SYSTEM_DIRS) {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (stat.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  args.push(...etcArgs());
  // Name resolution through systemd-resolved reads its stub file below /run.
  if (iso.network) args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  // With limits, /tmp and the home are each a tmpfs of the disk limit's size.
  const size = iso.limits ? ["--size", String(iso.limits.disk)] : [];
  args.push("--proc", "/proc", "--dev", "/dev", ...size, "--tmpfs", "/tmp", ...size, "--tmpfs", HOME_AT);
  for (const [real, at] of programPaths(iso, true)) args.push("--ro-bind", real, at);
  if (jail.shared) args.push("--ro-bind", jail.shared, SHARED_AT);
  args.push("--bind", jail.work, jail.work, ...gitGuard(jail.work), "--remount-ro", "/", "--chdir", jail.cwd);
  return args;
}

let probe: string | null | undefined;
let probing: Promise<void> | null = null;

/** How long the probe may take. */
const PROBE_TIMEOUT_MS = 20_000;

/** The probe's program: a real jail, as a test run gets one, running `true` in a scratch work tree. */
function probeArgs(work: string): string[] {
  const iso: Isolation = { mode: "namespace", network: false, dockerImage: "", allowRead: [], passEnv: [] };
  return [...bwrapArgs(iso, { work, cwd: work, env: {} }), "--", "true"];
}

/** The probe's verdict: null when the jail ran `true`, else why not. */
function verdict(error: Error | undefined, status: number | null, stderr: string): string | null {
  if (error) return `bwrap cannot be started (${errnoCode(error) ?? error.message})`;
  if (status !== 0) return `bwrap fails here: ${lastLine(stderr) || `exit code ${String(status)}`}`;
  return null;
}

/** Null when bubblewrap can isolate a program here (tried once per process: a real jail running `true`), else why not. */
export function bwrapUnavailable(): string | null {
  if (probe !== undefined) return probe;
  const work = mkdtempSync(path.join(os.tmpdir(), "gitgood-probe-"));
  try {
    const r = spawnSync("bwrap", probeArgs(work), { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", timeout: PROBE_TIMEOUT_MS });
    probe = verdict(r.error, r.status, r.stderr);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return probe;
}

/** The same probe as `bwrapUnavailable`, started without waiting for it; its verdict is the one `bwrapUnavailable` then gives. */
export function probeBwrap(): Promise<void> {
  if (probe !== undefined) return Promise.resolve();
  probing ??= new Promise<void>((resolve) => {
    const work = mkdtempSync(path.join(os.tmpdir(), "gitgood-probe-"));
    let stderr = "";
    let timedOut = false;
    const settle = (why: string | null): void => {
      clearTimeout(timer);
      rmSync(work, { recursive: true, force: true });
      // A verdict the synchronous probe reached meanwhile stands.
      if (probe === undefined) probe = why;
      resolve();
    };
    const child = spawn("bwrap", probeArgs(work), { stdio: ["ignore", "ignore", "pipe"] });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, PROBE_TIMEOUT_MS);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => (stderr += text));
    child.once("error", (err) => settle(verdict(err, null, stderr)));
    child.once("close", (code) => settle(timedOut ? verdict(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" }), null, stderr) : verdict(undefined, code, stderr)));
  });
  return probing;
}

/** Linux namespaces through bubblewrap: read-only system, /etc without secrets, the work tree the only writable directory, no network by default, the limits. */
export const namespaceBackend: IsolationBackend = {
  name: "namespace",
  summary: "Linux namespaces through bubblewrap (bwrap)",
  usesImage: false,
  isolates: true,
  unavailable: bwrapUnavailable,
  probe: probeBwrap,
  enforcement: hostEnforcement,
  command(iso, jail, argv) {
    const args = [...bwrapArgs(iso, jail), "--", ...argv];
    return iso.limits ? limitedCommand(iso.limits, "bwrap", args, jailEnv(jail.env)) : { file: "bwrap", args, env: jailEnv(jail.env) };
  },
  node: () => process.execPath,
};
