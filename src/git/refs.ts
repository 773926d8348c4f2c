import type { Repo } from "./repo.js";

/** The commit HEAD points at. */
export async function headCommit(repo: Repo): Promise<string> {
  const info = await repo.reader?.info("HEAD");
  if (info?.type === "commit") return info.oid;
  return (await repo.text(["rev-parse", "HEAD"])).trim();
}

/** The ref a symbolic ref (`HEAD`, `refs/remotes/origin/HEAD`) points to, or null when it is not a symbolic ref. */
export async function symbolicRef(repo: Repo, name: string): Promise<string | null> {
  const r = await repo.run(["symbolic-ref", "--quiet", name], { okCodes: [0, 1, 128] });
  const target = r.stdout.toString("utf8").trim();
  return r.code === 0 && target !== "" ? target : null;
}
