import { randomBytes } from "node:crypto";
import { linkSync, lstatSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import type { GitGoodError } from "../errors.js";
import { removeAtExit } from "./cleanup.js";
import { errnoCode, fsReason } from "./errno.js";
import { readRegularFile } from "./files.js";
import { processAlive } from "./processes.js";

/**
 * One lock primitive between processes (and between callers in one process), used by run directories, memory,
 * scenario tool calls and environment builds. A lock is a file naming its holder; it is created whole or not at
 * all (a complete temporary sibling hard-linked into place: a link never replaces a file). A lock whose holder is
 * a process of this host that no longer runs is stale and taken over; a file that is not a lock gitgood wrote is
 * refused at once, never waited on or removed.
 */

interface LockHolder {
  pid: number;
  host: string;
  /** When the holder took the lock (ISO time); null for a lock written by an older gitgood. */
  started: string | null;
}

/** Why a file at a lock's place is not a lock. */
type NotALock = "not a regular file" | "no process id";

/** What a caller decides: how long to wait, and the errors its users see. */
interface LockPolicy {
  /** How long to wait while a live process holds the lock (default 0: refuse at once). */
  waitMs?: number;
  signal?: AbortSignal;
  /** Also remove the lock when the process exits or is stopped by SIGINT, SIGTERM or SIGHUP. */
  releaseAtExit?: boolean;
  busy(holder: LockHolder): GitGoodError;
  notALock(why: NotALock): GitGoodError;
  cannotCreate(code: string): GitGoodError;
  /** The error when `signal` aborts the wait (default: the busy error). */
  aborted?(): GitGoodError;
}

/** Locks this process holds (by path): a second taker in the same process waits or is refused too. */
const held = new Set<string>();

/** A holder as gitgood writes it (JSON), or as older versions did (`<pid>` or `<pid> <more>`). */
function parseHolder(text: string): LockHolder | null {
  const legacy = /^([1-9]\d*)(?: [^\n]*)?\n?$/.exec(text);
  if (legacy?.[1] !== undefined) return { pid: Number(legacy[1]), host: os.hostname(), started: null };
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === "number" && Number.isSafeInteger(v.pid) && v.pid > 0 && typeof v.host === "string") {
      return { pid: v.pid, host: v.host, started: typeof v.started === "string" ? v.started : null };
    }
  } catch {
    /* not JSON */
  }
  return null;
}

function create(file: string, policy: LockPolicy): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const me: LockHolder = { pid: process.pid, host: os.hostname(), started: new Date().toISOString() };
  // Registered first, so a signal between writing and linking leaves no temporary file behind.
  const removeTmp = removeAtExit(tmp);
  try {
    writeFileSync(tmp, `${JSON.stringify(me)}\n`, { flag: "wx" });
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if (errnoCode(err) === "EEXIST" && (err as { dest?: string }).dest === file) return false;
    throw policy.cannotCreate(fsReason(err));
  } finally {
    removeTmp();
  }
}

/** Moves a stale lock aside, only if it is still the one found stale (a lock taken meanwhile is put back). */
function removeStale(file: string, staleText: string): void {
  const aside = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.stale`;
  try {
    renameSync(file, aside);
  } catch {
    return; // gone already
  }
  if (readRegularFile(aside) !== staleText) {
    try {
      linkSync(aside, file);
    } catch {
      /* a third process holds the place now */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* already gone */
  }
}

type Attempt = { release: () => void } | { holder: LockHolder };

/** One try: the lock taken, or the live holder that has it. Stale locks are taken over on the way. */
function attempt(file: string, policy: LockPolicy): Attempt {
  for (let tries = 0; tries < 3; tries++) {
    if (!held.has(file) && create(file, policy)) {
      held.add(file);
      const removeOnExit = policy.releaseAtExit ? removeAtExit(file) : null;
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          held.delete(file);
          if (removeOnExit) removeOnExit();
          else {
            try {
              unlinkSync(file);
            } catch {
              /* already gone */
            }
          }
        },
      };
    }
    let stat;
    try {
      stat = lstatSync(file);
    } catch {
      continue; // released meanwhile
    }
    if (!stat.isFile()) throw policy.notALock("not a regular file");
    const text = readRegularFile(file);
    if (text === null) continue;
    const holder = parseHolder(text);
    if (holder === null) throw policy.notALock("no process id");
    const here = holder.host === os.hostname();
    const alive = !here || (holder.pid === process.pid ? held.has(file) : processAlive(holder.pid));
    if (alive) return { holder };
    removeStale(file, text);
  }
  throw policy.busy({ pid: 0, host: os.hostname(), started: null });
}

/** Takes the lock now or throws `busy`: for callers that must not wait. Returns the release function. */
export function takeLockNow(file: string, policy: LockPolicy): () => void {
  const got = attempt(file, policy);
  if ("release" in got) return got.release;
  throw policy.busy(got.holder);
}

const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/** Takes the lock, waiting up to `policy.waitMs` while a live process holds it. Returns the release function. */
export async function takeLock(file: string, policy: LockPolicy): Promise<() => void> {
  const deadline = Date.now() + (policy.waitMs ?? 0);
  let wait = 2;
  for (;;) {
    const got = attempt(file, policy);
    if ("release" in got) return got.release;
    if (policy.signal?.aborted) throw policy.aborted ? policy.aborted() : policy.busy(got.holder);
    if (Date.now() >= deadline) throw policy.busy(got.holder);
    await pause(Math.min(wait + Math.floor(Math.random() * wait), Math.max(1, deadline - Date.now())), policy.signal);
    wait = Math.min(wait * 2, 200);
  }
}

/** Runs `fn` holding the lock (see `takeLock`), and releases it however `fn` ends. */
export async function withLock<T>(file: string, fn: () => Promise<T>, policy: LockPolicy): Promise<T> {
  const release = await takeLock(file, policy);
  try {
    return await fn();
  } finally {
    release();
  }
}
