import { logMemory } from "./log.js";
import { hasContent, type TraceRecord } from "./trace.js";
import type { MemoryWorkspace } from "./memory-workspace.js";

/** Characters kept of each part of a step written to log.md. */
const STEP_FIELD_CHARS = 1000;
/** Bytes of steps the runner writes to log.md in one attempt; then one note says the rest is not logged. */
const STEP_LOG_BYTES = 64 * 1024;

function clip(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return text.length <= STEP_FIELD_CHARS ? text : `${text.slice(0, STEP_FIELD_CHARS)} […${text.length - STEP_FIELD_CHARS} more characters]`;
}

/**
 * The paper's fine-grained trace, kept by the runner itself: every observe–think–act step of the agent
 * is appended to the current memory branch's log.md as it happens (not only when the agent calls
 * memory_log), each part clipped to STEP_FIELD_CHARS and the whole to STEP_LOG_BYTES. Steps are
 * written in order, one at a time; a step that cannot be written is dropped (the log is a help to the
 * agent, never a reason for its attempt to fail).
 */
export class StepLog {
  private written = 0;
  private full = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: MemoryWorkspace,
    private readonly limit = STEP_LOG_BYTES,
  ) {}

  add(step: TraceRecord): void {
    if (this.full || !hasContent(step)) return;
    let record: TraceRecord = { observation: clip(step.observation), thought: clip(step.thought), action: clip(step.action), note: clip(step.note) };
    const size = Buffer.byteLength(JSON.stringify(record));
    if (this.written + size > this.limit) {
      this.full = true;
      record = { note: `later steps are not logged: the steps written by the runner reached ${this.limit} bytes` };
    }
    this.written += size;
    this.chain = this.chain.then(() => logMemory(this.ws, record).then(
      () => undefined,
      () => undefined,
    ));
  }

  /** Resolves when every step added so far is written. */
  flush(): Promise<void> {
    return this.chain;
  }
}
