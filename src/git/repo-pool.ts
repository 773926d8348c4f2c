import path from "node:path";
import { Repo } from "./repo.js";

/**
 * Repositories opened once each for a span of work (a run), every handle with its long-lived reader
 * (`Repo.keepReader`): the probe, the config read and the reader process are paid once per repository,
 * not once per attempt. `close` ends every reader. A location that fails to open is tried again next time.
 */
export class RepoPool {
  private readonly open = new Map<string, Promise<Repo>>();

  /** The handle on the repository at `location`, opened now or earlier. */
  get(location: string): Promise<Repo> {
    const key = path.resolve(location);
    let repo = this.open.get(key);
    if (!repo) {
      repo = Repo.open(key).then((r) => r.keepReader());
      this.open.set(key, repo);
      repo.catch(() => this.open.delete(key));
    }
    return repo;
  }

  /** Ends the readers of every handle handed out (the handles still work, a process per question). */
  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((r) => r.then((repo) => repo.close(), () => undefined)));
  }
}
