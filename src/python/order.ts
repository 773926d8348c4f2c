import { at } from "../util/at.js";

/**
 * Orders `files` so that each comes after the files it depends on (`dependsOn(file)`: other members of
 * `files`; anything else is ignored). Ties keep the order of `files`. Import cycles are broken as commit0
 * breaks them: find a cycle, take its first node out of the graph, and repeat until none is left; the
 * nodes taken out go at the end, in the order they were taken.
 */
export function dependencyOrder(files: readonly string[], dependsOn: (file: string) => readonly string[]): string[] {
  const members = new Set(files);
  const deps = new Map<string, string[]>();
  for (const f of files) deps.set(f, [...new Set(dependsOn(f))].filter((d) => d !== f && members.has(d)));
  const present = new Set(files);
  const removed: string[] = [];
  for (;;) {
    const cycle = findCycle(files, deps, present);
    if (!cycle) break;
    const first = at(cycle, 0);
    present.delete(first);
    removed.push(first);
  }
  return [...kahn(files, deps, present), ...removed];
}

/** A cycle among `present` nodes as a path [n0, n1, …] where each depends on the next and the last on n0; null when there is none. */
function findCycle(order: readonly string[], deps: ReadonlyMap<string, readonly string[]>, present: ReadonlySet<string>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    path.push(node);
    for (const dep of deps.get(node) ?? []) {
      if (!present.has(dep)) continue;
      const s = state.get(dep);
      if (s === "open") return path.slice(path.indexOf(dep));
      if (s === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    path.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of order) {
    if (!present.has(node) || state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

/** Dependencies first, ties in the order of `order` (the graph restricted to `present` has no cycle). */
function kahn(order: readonly string[], deps: ReadonlyMap<string, readonly string[]>, present: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const placed = new Set<string>();
  const waiting = order.filter((f) => present.has(f));
  while (out.length < waiting.length) {
    const next = waiting.find((f) => !placed.has(f) && (deps.get(f) ?? []).every((d) => !present.has(d) || placed.has(d)));
    if (next === undefined) break;
    placed.add(next);
    out.push(next);
  }
  return out;
}
