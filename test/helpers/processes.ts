import { readdirSync, readFileSync } from "node:fs";

/** The ids of the live processes whose command line contains `marker` (zombies have none). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (cmdline.includes(marker)) pids.push(Number(name));
  }
  return pids;
}

/**
 * Resolves once `ready()` is true, checking every 50 ms; rejects with `what` (and `detail()`, say the processes'
 * stderr) after `ms`: a deadline, not a timing assertion.
 */
export async function waitFor(ready: () => boolean | Promise<boolean>, what: string, ms = 30_000, detail?: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}${detail ? `\n${detail()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A marker no other process on the machine has in its command line: a sleep duration of 300 s and a random fraction. */
export function sleepMarker(): string {
  return `300.${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;
}

/** What is still alive with `marker` once every process should be gone (waited for up to 20 s): the list a test expects empty. */
export async function leftWith(marker: string): Promise<number[]> {
  await waitFor(() => processesWith(marker).length === 0, "every process with the marker is gone", 20_000).catch(() => undefined);
  return processesWith(marker);
}

/** Kills whatever still runs with `marker` (a test's clean-up, whatever its outcome). */
export function killAllWith(marker: string): void {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone meanwhile */
    }
  }
}
