/**
 * Orders `files` as commit0's agent orders the files it implements: each after the files it depends on
 * (`dependsOn(file)`: other members of `files`; anything else is ignored), as Python's
 * `graphlib.TopologicalSorter(graph).static_order()` gives them for the graph {file: its dependencies}
 * built in the order of `files` (commit0 sorts them by path). A cycle is broken as commit0 breaks it:
 * the sorter's first cycle is found, its first file loses its own dependencies (it stays a dependency of
 * the others), and the sort starts again. A file left out that way goes at the end.
 */
export function dependencyOrder(files: readonly string[], dependsOn: (file: string) => readonly string[]): string[] {
  const members = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) graph.set(f, [...new Set(dependsOn(f))].filter((d) => d !== f && members.has(d)).sort());
  for (;;) {
    const sorter = new StaticOrder(graph);
    const cycle = sorter.findCycle();
    if (cycle) {
      graph.delete(cycle[0] as string);
      continue;
    }
    const order = sorter.order();
    const placed = new Set(order);
    return [...order, ...files.filter((f) => !placed.has(f))];
  }
}

/** What graphlib keeps of a node: how many of its dependencies are not yet out, and who depends on it (in the order added). */
interface NodeInfo {
  waiting: number;
  dependents: string[];
}

/** graphlib.TopologicalSorter's static order, node for node: nodes in the order they were first named, groups of ready nodes in turn. */
class StaticOrder {
  private readonly nodes = new Map<string, NodeInfo>();

  constructor(graph: ReadonlyMap<string, readonly string[]>) {
    for (const [node, deps] of graph) {
      this.info(node).waiting += deps.length;
      for (const dep of deps) this.info(dep).dependents.push(node);
    }
  }

  private info(node: string): NodeInfo {
    let i = this.nodes.get(node);
    if (!i) {
      i = { waiting: 0, dependents: [] };
      this.nodes.set(node, i);
    }
    return i;
  }

  /** graphlib's `_find_cycle`: walks from each node to its dependents; the first cycle met, from its first node. */
  findCycle(): string[] | null {
    const seen = new Set<string>();
    for (const start of this.nodes.keys()) {
      if (seen.has(start)) continue;
      const stack: string[] = [];
      const iters: Iterator<string>[] = [];
      const onStack = new Map<string, number>();
      let node: string | undefined = start;
      for (;;) {
        if (seen.has(node)) {
          const at = onStack.get(node);
          if (at !== undefined) return stack.slice(at);
        } else {
          seen.add(node);
          iters.push((this.nodes.get(node) as NodeInfo).dependents[Symbol.iterator]());
          onStack.set(node, stack.length);
          stack.push(node);
        }
        node = undefined;
        while (stack.length > 0) {
          const next = (iters.at(-1) as Iterator<string>).next();
          if (!next.done) {
            node = next.value;
            break;
          }
          onStack.delete(stack.pop() as string);
          iters.pop();
        }
        if (node === undefined) break;
      }
    }
    return null;
  }

  /** The nodes ready at the start, then, group by group, those each finished group made ready. */
  order(): string[] {
    const waiting = new Map([...this.nodes].map(([n, i]) => [n, i.waiting]));
    const out: string[] = [];
    let ready = [...this.nodes.keys()].filter((n) => waiting.get(n) === 0);
    while (ready.length > 0) {
      out.push(...ready);
      const next: string[] = [];
      for (const node of ready) {
        for (const dependent of (this.nodes.get(node) as NodeInfo).dependents) {
          const left = (waiting.get(dependent) as number) - 1;
          waiting.set(dependent, left);
          if (left === 0) next.push(dependent);
        }
      }
      ready = next;
    }
    return out;
  }
}
