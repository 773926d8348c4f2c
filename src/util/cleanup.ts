import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { renameSync, rmSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";

/**
 * Paths to remove when the process ends, also on Ctrl-C or a kill: temporary object stores and
 * sandboxes must not outlive the run that made them.
 */
const paths = new Set<string>();
let installed = false;

function removeAll(): void {
  for (const p of paths) {
    try {
      rmSync(p, { recursive: true, force: true });
    } catch {
      /* best effort at exit */
    }
  }
  paths.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once("exit", removeAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      removeAll();
      process.exit(signal === "SIGINT" ? 130 : 143);
    });
  }
}

/**
 * Removals moved off the event loop, per scope (see `removingInBackground`). Removing a sandbox's work
 * tree is thousands of unlink calls: done with rmSync it stalls every other attempt of a parallel run.
 */
const background = new AsyncLocalStorage<Set<Promise<void>>>();

/**
 * Runs `fn` with the removals it asks for (`removeAtExit`'s remover) done in the background: the
 * path is renamed away at once, so it is gone for every caller, and its contents are deleted on
 * libuv's thread pool. Returns when `fn` has and every removal it started has finished.
 */
export async function removingInBackground<T>(fn: () => Promise<T>): Promise<T> {
  const pending = new Set<Promise<void>>();
  try {
    return await background.run(pending, fn);
  } finally {
    while (pending.size > 0) await Promise.all(pending);
  }
}

/** Removes a directory's entries but `last`, then the directory: a kill half-way leaves `last` in place. */
async function removeKeepingLast(dir: string, last: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n !== last).map((n) => rm(`${dir}/${n}`, { recursive: true, force: true })));
  await rm(dir, { recursive: true, force: true });
}

function removeLater(target: string, pending: Set<Promise<void>>, last: string | undefined): void {
  // The trash names this process, so that a sweep can remove what a kill left half removed.
  const trash = `${target}.removing-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    renameSync(target, trash);
  } catch {
    // Gone already, or not renameable: remove it in place.
    rmSync(target, { recursive: true, force: true });
    return;
  }
  paths.add(trash);
  const done: Promise<void> = (last === undefined ? rm(trash, { recursive: true, force: true }) : removeKeepingLast(trash, last))
    .catch(() => rmSync(trash, { recursive: true, force: true }))
    .finally(() => {
      paths.delete(trash);
      pending.delete(done);
    });
  pending.add(done);
}

/**
 * Registers a path for removal at exit; returns a function that removes it now and unregisters it
 * (inside `removingInBackground`, the path is gone when it returns and its contents soon after). With
 * `last`, a directory's entry of that name is removed after all the others (a sandbox's owner record,
 * which tells a later sweep whose half-removed directory it is).
 */
export function removeAtExit(path: string, opts: { last?: string } = {}): () => void {
  install();
  paths.add(path);
  return () => {
    paths.delete(path);
    const pending = background.getStore();
    if (pending) removeLater(path, pending, opts.last);
    else rmSync(path, { recursive: true, force: true });
  };
}
