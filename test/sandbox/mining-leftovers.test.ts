import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSyntheticRepo } from "../../src/demo/synthetic.js";
import { OBJECT_STORE_PREFIX } from "../../src/git/objects.js";
import { gitgood } from "../helpers/cli.js";

// Runs the built CLI (npm run build first).
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/gitgood.js");

let work: string;
let repo: string;
beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "gitgood-leftovers-"));
  repo = path.join(work, "source");
  // Big enough that the re-merge pass runs for a while: hundreds of merges, many with conflicts.
  await buildSyntheticRepo(repo, { commits: 3000, merges: 400, files: 20, seed: 5 });
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every path below `dir` with its size: any file git or gitgood left in the repository shows. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${path.relative(dir, p)} ${st.size}`);
    }
  };
  walk(dir);
  return out;
}

/** gitgood's private object stores in `tmp` and what each holds. */
function stores(tmp: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const name of readdirSync(tmp)) {
    if (name.startsWith(OBJECT_STORE_PREFIX)) found.set(name, readdirSync(path.join(tmp, name)));
  }
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("mining leaves nothing in the source repository, even when killed", () => {
  it("a SIGKILL in the middle of the re-merge pass leaves git's temporary objects in gitgood's own store, which the next run sweeps", async () => {
    const tmp = path.join(work, "tmp");
    rmSync(tmp, { recursive: true, force: true });
    const env = { ...process.env, TMPDIR: tmp };
    mkdirSync(tmp);
    const before = listing(path.join(repo, ".git"));

    const child = spawn(process.execPath, [BIN, "mine", repo, "--type", "merge", "-j", "2", "-o", path.join(work, "out.jsonl")], {
      env,
      detached: true,
      stdio: "ignore",
    });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    let caught = false;
    for (let waited = 0; waited < 60_000 && child.exitCode === null; waited += 5) {
      if ([...stores(tmp).values()].some((entries) => entries.some((e) => e.startsWith("tmp_objdir-remerge-diff-")))) {
        caught = true;
        break;
      }
      await sleep(5);
    }
    // The mining process and its git children die at once, as in a kill -9 of the whole job.
    process.kill(-(child.pid as number), "SIGKILL");
    await exited;
    expect(caught, "the re-merge pass never wrote to a private object store in TMPDIR").toBe(true);
    expect(listing(path.join(repo, ".git"))).toEqual(before);
    expect(readdirSync(path.join(repo, ".git", "objects")).filter((n) => n.startsWith("tmp_objdir"))).toEqual([]);
    const leftovers = [...stores(tmp).keys()];
    expect(leftovers.length).toBeGreaterThan(0);

    // The next run sweeps the stores of the killed one, and removes its own when it ends.
    const again = await gitgood(["mine", repo, "--type", "merge", "-o", path.join(work, "out.jsonl")], { env: { TMPDIR: tmp } });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/^mined \d+ samples/);
    for (const name of leftovers) expect(existsSync(path.join(tmp, name))).toBe(false);
    expect([...stores(tmp).keys()]).toEqual([]);
    expect(listing(path.join(repo, ".git"))).toEqual(before);
  }, 180_000);
});
