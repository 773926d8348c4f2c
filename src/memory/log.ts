import { GitGoodError } from "../errors.js";
import { locked } from "./guard.js";
import { appendText, exists } from "./files.js";
import { hasContent, renderTraceHeader, renderTraceRecord, type TraceRecord } from "./trace.js";
import type { MemoryWorkspace } from "./memory-workspace.js";

/** What LOG wrote: the branch, the record's time stamp, and the record. */
export interface LogResult {
  branch: string;
  timestamp: string;
  record: string;
}

/** LOG: appends one timestamped observation–thought–action record to the branch's log.md. */
export async function logMemory(ws: MemoryWorkspace, record: TraceRecord): Promise<LogResult> {
  if (!hasContent(record)) {
    throw new GitGoodError("BAD_INPUT", "a log record needs some text: an observation, a thought, an action or a note");
  }
  return locked(ws, async () => {
    const branch = await ws.currentMemoryBranch();
    const file = ws.branchAbs(branch, "log.md");
    const timestamp = ws.timestamp();
    const text = renderTraceRecord(record, timestamp);
    appendText(ws.root, file, exists(ws.root, file) ? text : renderTraceHeader(branch) + text);
    return { branch, timestamp, record: text.trim() };
  });
}
