import { rmSync } from "node:fs";

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

/** Registers a path for removal at exit; returns a function that removes it now and unregisters it. */
export function removeAtExit(path: string): () => void {
  install();
  paths.add(path);
  return () => {
    paths.delete(path);
    rmSync(path, { recursive: true, force: true });
  };
}
