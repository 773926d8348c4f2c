import { readFileSync } from "node:fs";
import { afterAll } from "vitest";
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

/** A clock that starts at 2024-01-01T00:00:00Z (or `start`, in ms) and moves one minute per reading; `next` is its next reading. */
export function steppingClock(start = Date.UTC(2024, 0, 1)): (() => Date) & { next: () => number } {
  let t = start;
  const clock = () => {
    const d = new Date(t);
    t += 60_000;
    return d;
  };
  return Object.assign(clock, { next: () => t });
}

export async function openWorkspace(dir: string, opts: WorkspaceOptions = {}): Promise<MemoryWorkspace> {
  return MemoryWorkspace.open(dir, { env: MEMORY_ENV, now: steppingClock(), ...opts });
}

export interface MemoryFixture {
  fx: Fixture;
  ws: MemoryWorkspace;
}

/** A fixture repository with one commit (README.md, src/app.txt) and memory started on main. */
async function buildMemoryFixture(opts: WorkspaceOptions & { goal?: string }, clock = steppingClock()): Promise<MemoryFixture & { clock: typeof clock }> {
  const fx = new Fixture();
  fx.commit("base", { "README.md": "# demo\n", "src/app.txt": "one\ntwo\nthree\n" });
  const ws = await openWorkspace(fx.dir, { now: clock, ...opts });
  await initMemory(ws, { goal: opts.goal ?? "Make the demo app count to five." });
  return { fx, ws, clock };
}

/**
 * Memory fixtures for a test file, each a copy of a template `build` makes once (from the fixture
 * memoryFixture gives) at the file's first call: a repository of its own, which the test may change, and a
 * workspace on it whose clock goes on from the template's. Templates are removed after the file's tests.
 */
export function memoryTemplate(build: (made: MemoryFixture) => Promise<void> = async () => undefined): (opts?: WorkspaceOptions & { goal?: string }) => Promise<MemoryFixture> {
  const templates = new Map<string, Promise<{ fx: Fixture; next: number }>>();
  afterAll(async () => {
    for (const t of templates.values()) (await t.catch(() => null))?.fx.remove();
    templates.clear();
  });
  return async (opts = {}) => {
    // A workspace option that shapes what init writes makes a template of its own; the others apply to the copy.
    const key = JSON.stringify([opts.goal ?? null, opts.memoryDir ?? null, opts.env ?? null]);
    let template = templates.get(key);
    if (!template) {
      template = (async () => {
        const { goal, memoryDir, env } = opts;
        const made = await buildMemoryFixture({ ...(goal && { goal }), ...(memoryDir && { memoryDir }), ...(env && { env }) });
        await build(made);
        return { fx: made.fx, next: made.clock.next() };
      })();
      templates.set(key, template);
    }
    const { fx: source, next } = await template;
    const fx = Fixture.copyOf(source);
    return { fx, ws: await openWorkspace(fx.dir, { now: steppingClock(next), ...opts }) };
  };
}

const plain = memoryTemplate();

/** A fixture repository with one commit (README.md, src/app.txt) and memory started on main (a copy of the file's template). */
export function memoryFixture(opts: WorkspaceOptions & { goal?: string } = {}): Promise<MemoryFixture> {
  return opts.now ? buildMemoryFixture(opts) : plain(opts);
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
