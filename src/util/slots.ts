/**
 * A fixed number of slots shared by several pools of work, so that two passes running side by side
 * keep at most `size` processes between them; a waiting taker is served first come, first served.
 */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  private async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }

  /** Runs `fn` once it holds a slot, which it gives back when `fn` settles. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.take();
    try {
      return await fn();
    } finally {
      this.give();
    }
  }

  /** `source` started only once it holds a slot, which it gives back when it ends. */
  gate<T>(source: () => AsyncIterable<T>): () => AsyncIterable<T> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const slots = this;
    return async function* gated() {
      await slots.take();
      try {
        yield* source();
      } finally {
        slots.give();
      }
    };
  }
}
