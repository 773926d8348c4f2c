import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";

/*
 * Running an exported Harbor task's scripts outside Docker, as Harbor runs them in the container: the
 * repository built by environment/start/start.sh in a directory of the test's, /app and /logs mapped to
 * directories of the test's through GITGOOD_TASK_REPO and GITGOOD_TASK_LOGS.
 */

export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: "1" } });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** What Docker's build does with environment/start: the task's repository, built in a new directory below `scratch`. */
export function startRepo(task: string, scratch: string): string {
  const repo = mkdtempSync(path.join(scratch, "app-"));
  const r = spawnSync("sh", [path.join(task, "environment", "start", "start.sh"), repo], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return repo;
}

/** Runs a task's script with the repository and logs mapped; returns the reward written, if any, and the output. */
export function runScript(task: string, script: string, repo: string, scratch: string): { reward: string | null; output: string; logs: string } {
  const logs = mkdtempSync(path.join(scratch, "logs-"));
  const r = spawnSync("bash", [path.join(task, script)], { encoding: "utf8", env: { ...process.env, GITGOOD_TASK_REPO: repo, GITGOOD_TASK_LOGS: logs } });
  expect(r.status, r.stderr).toBe(0);
  const file = path.join(logs, "verifier", "reward.txt");
  return { reward: existsSync(file) ? readFileSync(file, "utf8") : null, output: r.stdout + r.stderr, logs };
}

/** Every object the environment's bundle carries, read back as Docker's build would get them. */
export function bundleObjects(task: string, scratch: string): Set<string> {
  const repo = mkdtempSync(path.join(scratch, "bundle-"));
  const start = path.join(task, "environment", "start");
  git(repo, "init", "-q", "--template=");
  if (existsSync(path.join(start, "git", "shallow"))) writeFileSync(path.join(repo, ".git", "shallow"), readFileSync(path.join(start, "git", "shallow")));
  git(repo, "bundle", "unbundle", path.join(start, "repo.bundle"));
  return new Set(git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").trim().split("\n"));
}

/** Every file's bytes under a directory, joined (to look for answer text in it). */
export function allBytes(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(path.join(e.parentPath, e.name)).toString("latin1"))
    .join("\n");
}
