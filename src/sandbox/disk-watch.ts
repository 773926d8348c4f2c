import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/** Bytes the files below `dir` take on disk (allocated blocks, so a sparse file counts what it holds), symbolic links not followed. */
export async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    let names: string[];
    try {
      names = await readdir(next);
    } catch {
      continue;
    }
    for (const name of names) {
      const p = path.join(next, name);
      try {
        const st = await lstat(p);
        total += st.blocks * 512;
        if (st.isDirectory()) pending.push(p);
      } catch {
        /* removed meanwhile */
      }
    }
  }
  return total;
}

/** The least pause between two measurements, and how many times a measurement's own duration the pause is at least. */
const MIN_PAUSE_MS = 100;
const PAUSE_FACTOR = 4;

/**
 * Measures a work tree again and again while a program runs, and calls `over` once it has grown more than
 * `budget` bytes beyond `baseline`. A measurement of a large tree pauses the longer, so watching takes
 * a fifth of one core at most; a program writing fast can overshoot by what it writes in one round. The
 * first measurement is at once, or one pause in where `baseline` was measured just before the program
 * started (it has had no time to write more than a round holds, and the program's start gets the CPU).
 */
export class DiskWatch {
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string,
    private readonly baseline: number,
    private readonly budget: number,
    private readonly over: () => void,
    baselineJustMeasured = false,
  ) {
    this.schedule(baselineJustMeasured ? MIN_PAUSE_MS : 0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.measure(), ms);
    this.timer.unref();
  }

  private async measure(): Promise<void> {
    const started = Date.now();
    const bytes = await treeBytes(this.dir);
    if (this.stopped) return;
    if (bytes - this.baseline > this.budget) {
      this.stop();
      this.over();
      return;
    }
    this.schedule(Math.max(MIN_PAUSE_MS, (Date.now() - started) * PAUSE_FACTOR));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
