import type { Repo } from "./repo.js";

/** Objects reachable from `tips` that a partial clone does not have, listed without fetching anything. */
export async function missingObjects(repo: Repo, tips: readonly string[]): Promise<Set<string>> {
  const missing = new Set<string>();
  for await (const line of repo.stream(["rev-list", "--objects", "--missing=print", "--stdin"], {
    input: tips.map((t) => `${t}\n`).join(""),
    separator: 10,
  })) {
    if (line.startsWith("?")) missing.add(line.slice(1).trim());
  }
  return missing;
}

/** Disk space of the object store in KiB: loose objects plus packs (`git count-objects -v`). */
export async function objectStoreKb(repo: Repo): Promise<number> {
  const out = await repo.text(["count-objects", "-v"]);
  let kb = 0;
  for (const line of out.split("\n")) {
    const m = /^(size|size-pack): (\d+)$/.exec(line);
    if (m) kb += Number(m[2]);
  }
  return kb;
}
