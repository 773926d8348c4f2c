import { readFileSync } from "node:fs";
import path from "node:path";
import { MemoryWorkspace, type WorkspaceOptions } from "../../src/memory/memory-workspace.js";
import { initMemory } from "../../src/memory/init.js";
import { Fixture } from "./fixture.js";

/** Environment for the memory library's git processes in tests: no user config, fixed identity and date. */
export const MEMORY_ENV: Record<string, string> = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Ada Fixture",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Ada Fixture",
  GIT_COMMITTER_EMAIL: "ada@example.com",
  GIT_AUTHOR_DATE: "1704067200 +0000",
  GIT_COMMITTER_DATE: "1704067200 +0000",
};

/** A clock that starts at 2024-01-01T00:00:00Z and moves one minute per reading. */
export function steppingClock(): () => Date {
  let t = Date.UTC(2024, 0, 1);
  return () => {
    const d = new Date(t);
    t += 60_000;
    return d;
  };
}

export async function openWorkspace(dir: string, opts: WorkspaceOptions = {}): Promise<MemoryWorkspace> {
  return MemoryWorkspace.open(dir, { env: MEMORY_ENV, now: steppingClock(), ...opts });
}

/** A fixture repository with one commit (README.md, src/app.txt) and memory started on main. */
export async function memoryFixture(
  opts: WorkspaceOptions & { goal?: string } = {},
): Promise<{ fx: Fixture; ws: MemoryWorkspace }> {
  const fx = new Fixture();
  fx.commit("base", { "README.md": "# demo\n", "src/app.txt": "one\ntwo\nthree\n" });
  const ws = await openWorkspace(fx.dir, opts);
  await initMemory(ws, { goal: opts.goal ?? "Make the demo app count to five." });
  return { fx, ws };
}

export function readIn(fx: Fixture, file: string): string {
  return readFileSync(path.join(fx.dir, file), "utf8");
}

/** Parents of a commit, as full ids. */
export function parents(fx: Fixture, rev: string): string[] {
  return fx.git("rev-list", "--parents", "-n1", rev).split(" ").slice(1);
}

/** `git status --porcelain` of the fixture (tracked and untracked). */
export function porcelain(fx: Fixture): string {
  return fx.git("status", "--porcelain=v1");
}
