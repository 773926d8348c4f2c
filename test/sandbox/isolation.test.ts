import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import { execIn } from "../../src/sandbox/exec.js";
import {
  HOME_AT,
  SHARED_AT,
  bwrapArgs,
  bwrapUnavailable,
  chooseIsolation,
  dockerArgs,
  dockerUnavailable,
  isolatedCommand,
  isolationNote,
  nodeCommand,
  type Isolation,
} from "../../src/sandbox/isolation.js";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import type { Fixture } from "../helpers/fixture.js";
import { processesWith, sleepMarker, waitFor } from "../helpers/processes.js";
import { buildMergeFixture, useSandboxRoot } from "../helpers/scenarios.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`namespace isolation tests skipped: ${noBwrap}\n`);

const isolation = (over: Partial<Isolation> = {}): Isolation => ({
  mode: "namespace",
  network: false,
  dockerImage: "node:20-bookworm",
  allowRead: [],
  passEnv: [],
  ...over,
});

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-isolation-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** [flag, source, target] for every mount option of a bubblewrap argument list. */
function mounts(args: string[]): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (["--bind", "--ro-bind", "--ro-bind-try", "--symlink"].includes(a)) out.push([a, args[i + 1] as string, args[i + 2] as string]);
  }
  return out;
}

describe("the bubblewrap argument list", () => {
  const work = "/data/sandboxes/s-1/work";
  const jail = { work, cwd: path.join(work, "src"), shared: "/tmp/gitgood-tools-x", env: {} };

  it("unshares every namespace, shows the work tree read-write and nothing else writable but fresh /tmp and home", () => {
    const args = bwrapArgs(isolation({ allowRead: [scratch] }), jail);
    expect(args.slice(0, 1)).toEqual(["--unshare-all"]);
    expect(args).toContain("--die-with-parent");
    // A new session would take the namespace out of the process group a kill reaches (exec.ts).
    expect(args).not.toContain("--new-session");
    expect(args).not.toContain("--share-net");
    const m = mounts(args);
    expect(m.filter(([flag]) => flag === "--bind")).toEqual([["--bind", work, work]]);
    expect(m).toContainEqual(["--ro-bind", jail.shared, SHARED_AT]);
    expect(m).toContainEqual(["--ro-bind", scratch, scratch]);
    expect(m.find(([, , at]) => at === "/usr")?.[0]).toMatch(/^--(ro-bind|symlink)$/);
    // Nothing shows the user's home, the sandbox's private directory or the sandbox root.
    for (const [, , at] of m) {
      expect(os.homedir().startsWith(at) && at !== "/", at).toBe(false);
      expect(at.startsWith("/data/sandboxes/s-1/private")).toBe(false);
      expect(at === "/data/sandboxes" || at === "/data/sandboxes/s-1").toBe(false);
    }
    const tmpfs = args.flatMap((a, i) => (a === "--tmpfs" ? [args[i + 1]] : []));
    expect(tmpfs).toEqual(["/tmp", HOME_AT]);
    expect(args.indexOf("--remount-ro")).toBeGreaterThan(args.lastIndexOf("--bind"));
    expect(args.slice(-2)).toEqual(["--chdir", jail.cwd]);
  });

  it("shares the network only when asked", () => {
    expect(bwrapArgs(isolation({ network: true }), jail)).toContain("--share-net");
  });
});

describe("the docker argument list", () => {
  it("runs a removed-afterwards container with the same mounts, no network, and variables passed by name only", () => {
    const work = "/data/s/work";
    const args = dockerArgs(
      isolation({ mode: "docker", dockerImage: "img:1" }),
      { work, cwd: work, shared: "/tmp/t", env: { OPENAI_API_KEY: "secret-value", PATH: "/usr/bin" } },
      "gitgood-test",
      ["sh", "-c", "echo hi"],
    );
    expect(args.slice(0, 3)).toEqual(["run", "--rm", "-i"]);
    expect(args).toContain("--read-only");
    expect(args.join(" ")).toContain("--network none");
    expect(args.join(" ")).toContain(`-v ${work}:${work} -w ${work}`);
    expect(args.join(" ")).toContain(`-v /tmp/t:${SHARED_AT}:ro`);
    expect(args.join(" ")).toContain("-e OPENAI_API_KEY -e PATH");
    expect(args.join(" ")).not.toContain("secret-value");
    expect(args.slice(-4)).toEqual(["img:1", "sh", "-c", "echo hi"]);
    // gitgood's installation is mounted; node and git are the image's.
    const dist = path.join(ROOT, "dist");
    expect(args.join(" ")).toContain(`-v ${dist}:${dist}:ro`);
    expect(nodeCommand(isolation({ mode: "docker" }))).toBe("node");
    expect(nodeCommand(isolation())).toBe(process.execPath);
    const open = dockerArgs(isolation({ mode: "docker", network: true }), { work, cwd: work, env: {} }, "n", ["true"]);
    expect(open).not.toContain("--network");
    expect(open).not.toContain(`${SHARED_AT}:ro`);
  });

  it("is what docker isolation starts; without a daemon it is refused in one line", () => {
    const cmd = isolatedCommand(isolation({ mode: "docker" }), { work: "/w", cwd: "/w", env: { A: "1" } }, ["true"]);
    expect(cmd.file).toBe("docker");
    expect(cmd.env).toMatchObject({ A: "1", HOME: HOME_AT, TMPDIR: "/tmp" });
    expect(typeof cmd.afterKill).toBe("function");
    const why = dockerUnavailable();
    if (why === null) return;
    expect(() => chooseIsolation({ mode: "docker" })).toThrow(/^--isolation docker cannot run here \(.+\); choose --isolation namespace or --isolation none /);
  });
});

describe("choosing the isolation", () => {
  it("uses namespaces where bubblewrap runs and refuses them in one line where it cannot; none only when asked for", () => {
    if (noBwrap) {
      expect(() => chooseIsolation({ mode: "namespace" })).toThrow(`--isolation namespace cannot run here (${noBwrap}); choose`);
    } else {
      const chosen = chooseIsolation({ mode: "namespace" });
      expect(chosen).toMatchObject({ mode: "namespace", network: false, passEnv: [] });
      expect(isolationNote(chosen)).toBeNull();
    }
    const none = chooseIsolation({ mode: "none", passEnv: ["A", "A", "B_2"] });
    expect(none).toMatchObject({ mode: "none", network: true, passEnv: ["A", "B_2"] });
    expect(isolationNote(none)).toMatch(/^isolation: none \(asked for\); agent programs run without isolation/);
    expect(() => chooseIsolation({ mode: "none", passEnv: ["A=1"] })).toThrow("--pass-env takes a variable name, not 'A=1'");
    expect(() => chooseIsolation({ mode: "chroot" })).toThrow("--isolation takes namespace, docker, none, not 'chroot'");
    expect(() => chooseIsolation({ mode: "none", allowRead: [path.join(scratch, "missing")] })).toThrow(/--allow-read .*missing: no such file/);
  });

  it("runs a program unchanged without isolation", () => {
    expect(isolatedCommand(isolation({ mode: "none" }), { work: "/w", cwd: "/w", env: { A: "1" } }, ["echo", "x"])).toEqual({
      file: "echo",
      args: ["x"],
      env: { A: "1" },
    });
  });
});

describe("exec time-out", () => {
  it.for([
    ["none", false],
    ["namespace", noBwrap !== null],
  ] as const)("kills the whole process tree, grandchildren included (isolation %s)", async ([mode, skip], ctx) => {
    if (skip) ctx.skip();
    const work = mkdtempSync(path.join(scratch, "work-"));
    const marker = sleepMarker();
    const script = `sh -c 'sleep ${marker}1' & sleep ${marker}2 & echo started; wait`;
    const place = mode === "none" ? undefined : { work, isolation: isolation() };
    const pending = execIn(work, ["sh", "-c", script], { timeout: 2 }, place);
    await waitFor(() => processesWith(marker).length >= 2, "the sleeps start");
    const r = await pending;
    expect(r).toMatchObject({ timedOut: true, code: null, signal: "SIGKILL" });
    await waitFor(() => processesWith(marker).length === 0, "every process of the tree is gone", 10_000);
    expect(processesWith(marker)).toEqual([]);
  });
});

describe("exec abort", () => {
  it.for([
    ["none", false],
    ["namespace", noBwrap !== null],
  ] as const)("leaves nothing behind even while the program is still starting (isolation %s)", async ([mode, skip], ctx) => {
    if (skip) ctx.skip();
    const work = mkdtempSync(path.join(scratch, "work-"));
    const marker = sleepMarker();
    const place = mode === "none" ? undefined : { work, isolation: isolation() };
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const pending = execIn(work, ["sh", "-c", `sleep ${marker}${i}`], { signal: controller.signal }, place);
      // Aborted after 0 to 40 ms: while bubblewrap sets up the namespace, or once the program runs.
      await new Promise((resolve) => setTimeout(resolve, i * 10));
      controller.abort();
      expect(await pending).toMatchObject({ aborted: true, code: null });
    }
    await waitFor(() => processesWith(marker).length === 0, "every process of the tree is gone", 10_000).catch(() => undefined);
    expect(processesWith(marker)).toEqual([]);
  });
});

describe("Sandbox.exec in namespace isolation", () => {
  let root: ReturnType<typeof useSandboxRoot>;
  let fx: Fixture;
  beforeAll(() => {
    root = useSandboxRoot();
    ({ fx } = buildMergeFixture());
  });
  afterAll(() => {
    fx.remove();
    root.cleanup();
  });

  it("sees its work tree (read-write, at its own path) and system directories, and nothing of the sandbox, the source or the home", async (ctx) => {
    if (noBwrap) ctx.skip();
    const home = mkdtempSync(path.join(scratch, "home-"));
    writeFileSync(path.join(home, "canary.txt"), "home canary\n");
    const shared = mkdtempSync(path.join(scratch, "shared-"));
    writeFileSync(path.join(shared, "note.txt"), "shared note\n");
    const sb = await Sandbox.create(await Repo.open(fx.dir), { label: "exec", store: { packs: [], shallow: [] } });
    try {
      sb.isolate(chooseIsolation({ mode: "namespace" }));
      mkdirSync(path.join(sb.workDir, "sub"));
      const probe = [
        "pwd",
        "echo made > made.txt && echo wrote-work",
        "ls -a ../..",
        `cat ${path.join(sb.dir, "owner.json")} || echo no-owner`,
        `ls ${fx.dir} || echo no-source`,
        `cat ${path.join(home, "canary.txt")} || echo no-home`,
        `cat ${SHARED_AT}/note.txt`,
        `echo x > ${SHARED_AT}/evil.txt || echo shared-read-only`,
        "echo x > /usr/evil.txt || echo usr-read-only",
        'echo "$HOME" && touch "$HOME/ok" && echo home-writable',
        "git --version >/dev/null && echo has-git",
      ].join("; ");
      const r = await sb.exec(["sh", "-c", probe], { cwd: "sub", shared, env: { HOME: home } });
      const out = r.stdout.toString("utf8");
      expect(out.split("\n")).toEqual([
        path.join(sb.workDir, "sub"),
        "wrote-work",
        ".",
        "..",
        "work",
        "no-owner",
        "no-source",
        "no-home",
        "shared note",
        "shared-read-only",
        "usr-read-only",
        HOME_AT,
        "home-writable",
        "has-git",
        "",
      ]);
      expect(r.stderr.toString("utf8")).not.toContain("home canary");
      expect(readFileSync(path.join(sb.workDir, "sub", "made.txt"), "utf8")).toBe("made\n");
      expect(existsSync(path.join(shared, "evil.txt"))).toBe(false);
      expect(sb.seenAt(shared)).toBe(SHARED_AT);
    } finally {
      sb.remove();
    }
  });
});
