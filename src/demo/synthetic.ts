import { mkdirSync } from "node:fs";
import { mulberry32 } from "../dataset/random.js";
import { fastImport, forceCheckout, initRepository } from "../git/init.js";
import { at } from "../util/at.js";

/** The size of a synthetic repository (commits, merges, files) and the seed of its content. */
export interface SyntheticOptions {
  commits?: number;
  merges?: number;
  files?: number;
  seed?: number;
}

type Content = Map<string, string[]>;

/**
 * Builds a deterministic repository with `git fast-import`: a main line with runs of edits to one file
 * (file-commit chains) and side branches merged back, about 40 % of them with a conflict that the
 * recorded merge resolves. Used by `gitgood bench --demo` and the benchmark scripts.
 */
export async function buildSyntheticRepo(dir: string, opts: SyntheticOptions = {}): Promise<{ commits: number; merges: number }> {
  const commits = opts.commits ?? 10_000;
  const merges = opts.merges ?? 850;
  const files = opts.files ?? 60;
  mkdirSync(dir, { recursive: true });
  await initRepository(dir, { branch: "main" });
  const rand = mulberry32(opts.seed ?? 7);
  const pick = (n: number): number => Math.floor(rand() * n);
  const paths = Array.from({ length: files }, (_, i) => `pkg/mod${i % 7}/file_${i}.py`);
  paths.push("README.md", "docs/notes.txt", "config/settings.yaml");
  const pathAt = (i: number): string => at(paths, i);
  const initial = (p: string): string[] => Array.from({ length: 200 }, (_, i) => `${p.replace(/\W/g, "_")}_line_${i} = ${i}`);
  const chunks: string[] = [];
  let mark = 0;
  let time = 1_600_000_000;
  const blob = (lines: readonly string[]): string => {
    const text = `${lines.join("\n")}\n`;
    return `data ${Buffer.byteLength(text)}\n${text}\n`;
  };
  const commit = (branch: string, parents: readonly number[], content: Content, changed: readonly string[], message: string): number => {
    mark++;
    time += 60;
    let s = `commit refs/heads/${branch}\nmark :${mark}\ncommitter Demo <demo@example.com> ${time} +0000\n`;
    s += `data ${Buffer.byteLength(message)}\n${message}\n`;
    if (parents[0]) s += `from :${parents[0]}\n`;
    if (parents[1]) s += `merge :${parents[1]}\n`;
    for (const p of changed) s += `M 100644 inline ${p}\n${blob(content.get(p) ?? [])}`;
    chunks.push(s);
    return mark;
  };
  const edit = (content: Content, p: string, line: number, value: string): Content => {
    const next = new Map(content);
    const lines = [...(next.get(p) ?? [])];
    lines[line] = value;
    next.set(p, lines);
    return next;
  };
  let content: Content = new Map(paths.map((p) => [p, initial(p)]));
  let head = commit("main", [], content, paths, "Initial import");
  let made = 1;
  let merged = 0;
  const perMerge = Math.max(4, Math.floor(commits / Math.max(1, merges)));
  while (made < commits) {
    // A run on main: 1..6 edits, mostly to one file, so chains appear.
    const focus = pathAt(pick(files));
    const run = 1 + pick(6);
    for (let i = 0; i < run && made < commits; i++) {
      const p = rand() < 0.8 ? focus : pathAt(pick(paths.length));
      content = edit(content, p, pick(200), `main_edit_${made} = ${made}`);
      const changed = [p];
      if (rand() < 0.3) {
        const q = pathAt(paths.length - 1 - pick(3));
        content = edit(content, q, pick(200), `note ${made}`);
        changed.push(q);
      }
      head = commit("main", [head], content, changed, `Change ${p.split("/").pop()} (${made})`);
      made++;
    }
    if (merged < merges && made + perMerge < commits) {
      const base = head;
      // The side branch starts at main's head, whose content is the current one (no other state is kept,
      // so a repository of many files and commits fits in memory).
      const baseContent = content;
      // A conflicting merge clashes on 1..2 lines (far apart) of 1..2 files: easy, medium and hard samples.
      const conflicting = rand() < 0.4;
      const clashes: { file: string; line: number }[] = [];
      if (conflicting) {
        const first = pick(files);
        const targets = rand() < 0.3 ? [pathAt(first), pathAt((first + 1 + pick(files - 1)) % files)] : [pathAt(first)];
        for (const file of targets) {
          const line = pick(90);
          clashes.push({ file, line });
          if (rand() < 0.4) clashes.push({ file, line: line + 20 + pick(80) });
        }
      }
      let side = baseContent;
      let sideHead = base;
      const sideCommits = 1 + pick(perMerge - 2);
      for (let i = 0; i < sideCommits; i++) {
        if (i === 0 && clashes.length > 0) {
          for (const c of clashes) side = edit(side, c.file, c.line, `side_edit_${made}_${c.line} = ${made}`);
          const touched = [...new Set(clashes.map((c) => c.file))];
          sideHead = commit(`topic/${merged % 40}`, [sideHead], side, touched, `Side change to ${touched.map((t) => t.split("/").pop()).join(", ")} (${made})`);
        } else {
          const p = pathAt(pick(files));
          side = edit(side, p, pick(200), `side_edit_${made} = ${made}`);
          sideHead = commit(`topic/${merged % 40}`, [sideHead], side, [p], `Side change to ${p.split("/").pop()} (${made})`);
        }
        made++;
      }
      if (clashes.length > 0) {
        for (const c of clashes) content = edit(content, c.file, c.line, `main_side_of_conflict_${made}_${c.line} = ${made}`);
        const touched = [...new Set(clashes.map((c) => c.file))];
        head = commit("main", [head], content, touched, `Conflicting change to ${touched.map((t) => t.split("/").pop()).join(", ")} (${made})`);
        made++;
      }
      // The recorded resolution: main's files, with the side's where only the side changed them, and a
      // hand-written line where both did.
      const result = new Map(content);
      const changed = new Set<string>();
      for (const p of paths) {
        if (side.get(p) !== baseContent.get(p) && content.get(p) === baseContent.get(p)) {
          result.set(p, side.get(p) ?? []);
          changed.add(p);
        }
      }
      for (const c of clashes) {
        const mine = result.get(c.file) ?? [];
        const theirs = side.get(c.file) ?? [];
        const merged_ = theirs.map((l, i) => (mine[i] !== (baseContent.get(c.file) ?? [])[i] ? (mine[i] ?? l) : l));
        merged_[c.line] = `resolved_${made}_${c.line} = ${made}`;
        result.set(c.file, merged_);
        changed.add(c.file);
      }
      content = result;
      head = commit("main", [head, sideHead], content, [...changed], `Merge topic ${merged}`);
      made++;
      merged++;
    }
  }
  chunks.push("done\n");
  await fastImport(dir, chunks.join(""));
  await forceCheckout(dir, "main");
  return { commits: made, merges: merged };
}
