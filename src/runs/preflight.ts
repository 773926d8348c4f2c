import { repositoryPath, type RepoLocator } from "../dataset/clones.js";
import { sampleCommits } from "../dataset/sample.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { objectKinds } from "../git/clone.js";
import { Repo } from "../git/repo.js";
import type { ModelClient } from "../model/types.js";

/** How long the check of the models may take at most before the run is stopped (less when the run's `--timeout` is shorter). */
const CHECK_SECONDS = 60;

/** The models a run calls, by what they do in it. */
interface RunModels {
  /** The models the agent calls (the llm agent's). */
  agent: readonly ModelClient[];
  /** The judge models that score IR and ICC. */
  judges: readonly ModelClient[];
}

/**
 * Checks every model a run will call, each model name once, with one small request (endpoint, model
 * name, key) before any sample runs: a wrong endpoint, key or model name stops the run with one line
 * instead of failing every sample. Clients that have no `check` (scripted ones) are not asked.
 * `stopped` says in the message what did not happen (`gitgood score`: nothing was re-scored); the
 * checks may take `seconds` (the run's `--timeout` when it is shorter than CHECK_SECONDS).
 */
export async function checkModels(models: RunModels, stopped = "no sample was run", seconds = CHECK_SECONDS): Promise<void> {
  const limit = Math.max(0.001, Math.min(seconds, CHECK_SECONDS));
  const seen = new Set<string>();
  const checks: { role: string; client: ModelClient & Required<Pick<ModelClient, "check">> }[] = [];
  for (const [role, clients] of [["agent", models.agent], ["judge", models.judges]] as const) {
    for (const client of clients) {
      if (!client.check || seen.has(client.model)) continue;
      seen.add(client.model);
      checks.push({ role, client: client as ModelClient & Required<Pick<ModelClient, "check">> });
    }
  }
  // The first failure stops the other checks: nothing is left waiting on an endpoint after the run stops.
  const stop = new AbortController();
  const timeout = AbortSignal.timeout(Math.round(limit * 1000));
  const signal = AbortSignal.any([stop.signal, timeout]);
  try {
    await Promise.all(
      checks.map(async ({ role, client }) => {
        try {
          await client.check(signal);
        } catch (err) {
          const e = timeout.aborted
            ? new GitGoodError("MODEL_TIMEOUT", `model ${client.model} did not answer within ${limit} s`)
            : toGitGoodError(err, "MODEL_ERROR");
          throw new GitGoodError(
            e.code,
            `the ${role} model failed its check, so ${stopped}: ${e.message}; check OPENAI_BASE_URL, OPENAI_API_KEY and the model name`,
            { ...e.data, role, model: client.model },
          );
        }
      }),
    );
  } finally {
    stop.abort();
  }
}

/**
 * Checks before any sample runs that each repository holds the commits of its samples: when none of a
 * repository's samples has all its commits there, the repository given is the wrong one (another
 * project, or a clone of another fork), and the run stops with one line saying so instead of failing
 * every sample with MISSING_COMMIT. A repository that cannot be opened, or holds the commits of some
 * samples, is left to the samples (each records its own error). `open` opens a repository (the run's
 * handles, which the samples use after).
 */
export async function checkRepositories(
  samples: readonly Sample[],
  where: RepoLocator,
  open: (dir: string) => Promise<Repo> = (dir) => Repo.open(dir),
): Promise<void> {
  const byPath = new Map<string, Sample[]>();
  for (const s of samples) {
    // A sample that names no commit (a family whose tasks need no history) has nothing to check.
    if (!sampleCommits(s).some((c) => typeof c.commit === "string" && c.commit !== "")) continue;
    let dir: string;
    try {
      dir = repositoryPath(where, s);
    } catch {
      continue;
    }
    byPath.set(dir, [...(byPath.get(dir) ?? []), s]);
  }
  for (const [dir, group] of byPath) {
    const repo = await open(dir).catch(() => null);
    if (!repo) continue;
    const commits = [...new Set(group.flatMap((s) => sampleCommits(s).map((c) => c.commit)))];
    const kinds = await objectKinds(repo, commits);
    if (group.some((s) => sampleCommits(s).every((c) => kinds.get(c.commit) === "commit"))) continue;
    const flag = "repo" in where ? "--repo" : "--repos";
    const names = [...new Set(group.map((s) => s.name))].join(", ");
    throw new GitGoodError(
      "BAD_OPTION",
      `${flag} is wrong: ${dir} holds none of the commits of the ${group.length} sample(s) of ${names} (commit ${commits[0] ?? "?"} is not there); give the clone the samples were mined from`,
      { repository: dir, samples: group.length },
    );
  }
}
