import type { Repo } from "./repo.js";

/** The value of a configuration key as the repository sees it, or null when it is not set (or empty). */
export async function configValue(repo: Repo, key: string): Promise<string | null> {
  const r = await repo.run(["config", "--get", key], { okCodes: [0, 1] });
  const value = r.stdout.toString("utf8").trim();
  return value === "" ? null : value;
}
