import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";
import { MEMORY_ENV, porcelain, readIn } from "../helpers/memory.js";

// The child processes run the built CLI and library (npm run build first).
const DIST = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/memory/index.js")).href;

const fixtures: Fixture[] = [];
function repo(): Fixture {
  const fx = new Fixture();
  fixtures.push(fx);
  fx.commit("base", { "README.md": "# demo\n" });
  return fx;
}
afterEach(() => {
  for (const fx of fixtures.splice(0)) fx.remove();
});

const mem = (fx: Fixture, args: string[], env: Record<string, string> = MEMORY_ENV) =>
  gitgood(["memory", "-C", fx.dir, ...args], { env });

/** Runs a node ES module script in a child process; resolves with its exit code and output. */
function nodeScript(source: string, env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", source], { env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe("gitgood memory (CLI)", () => {
  it("runs the verbs end to end and prints one-line errors", async () => {
    const fx = repo();
    expect(await mem(fx, ["init", "--goal", "Greet the user."])).toMatchObject({ code: 0, stderr: "" });
    fx.write({ "greet.txt": "hello\n" });
    expect((await mem(fx, ["log", "-o", "no greeting", "-t", "add one", "-a", "write greet.txt"])).stdout).toMatch(/^logged on main at \S+\n$/);
    const c = await mem(fx, ["commit", "Added greet.txt.", "--todo", "say goodbye", "--milestone", "greets"]);
    expect(c.stdout).toMatch(/^committed entry #1 on main as [0-9a-f]{12}\n$/);
    expect(fx.git("show", "--name-only", "--format=", "HEAD")).toContain("greet.txt");
    expect((await mem(fx, ["branch", "bye", "--purpose", "Say goodbye."])).code).toBe(0);
    expect(fx.git("symbolic-ref", "--short", "HEAD")).toBe("bye");
    fx.write({ "bye.txt": "bye\n" });
    await mem(fx, ["commit", "Added bye.txt."]);
    fx.checkout("main");
    const m = await mem(fx, ["merge", "bye", "--outcome", "Says goodbye too."]);
    expect(m.code).toBe(0);
    expect(m.stdout).toMatch(/^# Memory branch `bye`\n[\s\S]*Added bye\.txt\.[\s\S]*\nmerged bye into main as [0-9a-f]{12} \(entry #2\)\n$/);
    expect(fx.git("rev-list", "--parents", "-n1", "HEAD").split(" ")).toHaveLength(3);
    const json = JSON.parse((await mem(fx, ["--json", "context", "--commit", "2"])).stdout) as { context: string };
    expect(json.context).toContain("merge of bye");
    const small = await mem(fx, ["--max-chars", "400", "context"]);
    expect(small.stdout.length).toBeLessThanOrEqual(401);
    expect(small.stdout).toMatch(/the rest from offset (\d+)\]\n$/);
    const next = /the rest from offset (\d+)/.exec(small.stdout)?.[1] ?? "";
    expect((await mem(fx, ["--max-chars", "400", "context", "--offset", next])).stdout).toContain(`[shown: characters ${next}-`);
    expect((await mem(fx, ["diff", "HEAD~1", "HEAD", "--stat"])).stdout).toContain(".GCC/branches/main/commit.md");
    const first = fx.git("rev-list", "--max-parents=0", "HEAD");
    expect((await mem(fx, ["restore", "HEAD~1"])).stdout).toMatch(/^memory of main restored to [0-9a-f]{12} in commit [0-9a-f]{12}\n$/);

    for (const [args, message] of [
      [["merge", "main", "--outcome", "x"], "gitgood: cannot merge branch 'main' into itself\n"],
      [["merge", "ghost", "--outcome", "x"], "gitgood: there is no branch 'ghost'\n"],
      [["context", "--branch", "ghost"], "gitgood: there is no branch 'ghost'\n"],
      [["restore", first], `gitgood: commit ${first.slice(0, 12)} holds no memory of branch 'main' (.GCC/branches/main/commit.md); nothing was changed\n`],
    ] as const) {
      const r = await mem(fx, [...args]);
      expect(r).toMatchObject({ code: 1, stdout: "", stderr: message });
    }
    const dir = fx.scratch("plain");
    expect(await gitgood(["memory", "-C", dir, "context"], { env: MEMORY_ENV })).toMatchObject({
      code: 1,
      stderr: `gitgood: not a git repository: ${dir}\n`,
    });
    expect(porcelain(fx)).toBe("");
  });

  it("falls back to a clear identity when git has none configured", async () => {
    const fx = repo();
    const env = { ...MEMORY_ENV, GIT_AUTHOR_NAME: "", GIT_AUTHOR_EMAIL: "", GIT_COMMITTER_NAME: "", GIT_COMMITTER_EMAIL: "", HOME: fx.scratch("home") };
    expect((await mem(fx, ["init", "--goal", "g"], env)).code).toBe(0);
    expect(fx.git("log", "-1", "--format=%an <%ae>|%cn <%ce>")).toBe("gitgood-memory <memory@gitgood.local>|gitgood-memory <memory@gitgood.local>");
    fx.git("config", "user.name", "Configured Person");
    fx.git("config", "user.email", "cp@example.com");
    expect((await mem(fx, ["commit", "step"], env)).code).toBe(0);
    expect(fx.git("log", "-1", "--format=%an <%ae>")).toBe("Configured Person <cp@example.com>");
  });

  it("loses no trace lines when two processes log at once (and one of them also commits)", async () => {
    const fx = repo();
    expect((await mem(fx, ["init", "--goal", "g"])).code).toBe(0);
    const N = 60;
    const logger = (who: string) => `
      const { MemoryWorkspace, logMemory } = await import(${JSON.stringify(DIST)});
      const ws = await MemoryWorkspace.open(${JSON.stringify(fx.dir)});
      for (let i = 0; i < ${N}; i++) await logMemory(ws, { observation: "${who}-" + i, thought: "t", action: "a" });
    `;
    const committer = `
      const { MemoryWorkspace, logMemory, commitMemory } = await import(${JSON.stringify(DIST)});
      const { writeFileSync } = await import("node:fs");
      const ws = await MemoryWorkspace.open(${JSON.stringify(fx.dir)});
      for (let i = 0; i < ${N}; i++) {
        await logMemory(ws, { observation: "B-" + i, thought: "t", action: "a" });
        if (i % 15 === 0) {
          writeFileSync(${JSON.stringify(fx.dir)} + "/work" + i + ".txt", "w\\n");
          await commitMemory(ws, { contribution: "checkpoint " + i });
        }
      }
    `;
    const [a, b] = await Promise.all([nodeScript(logger("A"), MEMORY_ENV), nodeScript(committer, MEMORY_ENV)]);
    expect(a).toMatchObject({ code: 0, err: "" });
    expect(b).toMatchObject({ code: 0, err: "" });
    const trace = readIn(fx, ".GCC/branches/main/log.md");
    const seen = [...trace.matchAll(/^- observation: ([AB]-\d+)$/gm)].map((m) => m[1]);
    expect(seen).toHaveLength(2 * N);
    expect(new Set(seen).size).toBe(2 * N);
    expect(trace.match(/^### /gm)).toHaveLength(2 * N);
    expect(trace).toMatch(/^# Trace of memory branch `main`\n(\n### \S+\n- observation: [AB]-\d+\n- thought: t\n- action: a\n)+$/);
    expect(fx.git("rev-list", "--count", "HEAD")).toBe("6");
    expect(fx.git("status", "--porcelain", "--", "work0.txt", "work45.txt")).toBe("");
  }, 120_000);

  it("hands off: a fresh process (the built CLI) continues from CONTEXT alone", async () => {
    const fx = repo();
    // First worker: sets the goal, does part of the work, notes what is left, and commits.
    expect((await mem(fx, ["init", "--goal", "Create the files listed in the to-do list."])).code).toBe(0);
    fx.write({ "one.txt": "1\n" });
    await mem(fx, ["log", "-o", "one.txt was missing", "-a", "created it"]);
    expect(
      (await mem(fx, ["commit", "Created one.txt.", "--milestone", "one.txt exists", "--todo", "create two.txt containing 2", "--todo", "create three.txt containing 3"])).code,
    ).toBe(0);
    const firstCommit = fx.head();

    // Second worker: a new process that knows only the workspace path and what CONTEXT tells it.
    const second = `
      const { execFileSync } = await import("node:child_process");
      const { writeFileSync, existsSync } = await import("node:fs");
      const cli = (...args) => execFileSync(process.execPath, [${JSON.stringify(BIN)}, "memory", "-C", process.argv[1], ...args], { encoding: "utf8" });
      const context = cli("context");
      const todo = context.split("## To-do")[1].split("\\n## ")[0];
      const done = [];
      for (const m of todo.matchAll(/^- create (\\S+) containing (.+)$/gm)) {
        if (existsSync(process.argv[1] + "/" + m[1])) continue;
        writeFileSync(process.argv[1] + "/" + m[1], m[2] + "\\n");
        done.push(m[1]);
      }
      const last = cli("context", "--branch", "main").includes("Created one.txt.");
      cli("commit", "Created " + done.join(" and ") + ".", "--milestone", "all files exist");
      console.log(JSON.stringify({ done, last }));
    `;
    const r = await new Promise<{ code: number; out: string }>((resolve) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", second, fx.dir], { env: { ...process.env, ...MEMORY_ENV } });
      let out = "";
      child.stdout.on("data", (b: Buffer) => (out += b.toString()));
      child.on("close", (code) => resolve({ code: code ?? -1, out }));
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ done: ["two.txt", "three.txt"], last: true });
    expect(fx.git("rev-parse", "HEAD~1")).toBe(firstCommit);
    expect(fx.git("show", "--name-only", "--format=", "HEAD").split("\n")).toEqual(
      expect.arrayContaining(["two.txt", "three.txt", ".GCC/branches/main/commit.md", ".GCC/main.md"]),
    );
    expect(readFileSync(path.join(fx.dir, "three.txt"), "utf8")).toBe("3\n");
    expect(readIn(fx, ".GCC/branches/main/commit.md")).toContain("Created one.txt.\nCreated two.txt and three.txt.");
    expect(porcelain(fx)).toBe("");
  }, 60_000);
});
