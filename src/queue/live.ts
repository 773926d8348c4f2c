import type { Queue } from "bullmq";

/**
 * The names of the workers connected to the queue now. BullMQ names a worker's connections
 * `bull:QUEUE:w:NAME` (CLIENT LIST's raw name); a killed worker's connections are gone from the list.
 */
export async function liveWorkerNames(queue: Queue): Promise<Set<string>> {
  const names = (await queue.getWorkers()).map((w) => {
    const raw = String((w as { rawname?: unknown }).rawname ?? "");
    return raw.includes(":w:") ? raw.slice(raw.indexOf(":w:") + 3) : "";
  });
  return new Set(names.filter((n) => n !== ""));
}
