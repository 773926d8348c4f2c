import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agents/mcp-config.js";
import { sampleToJson, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import { bwrapUnavailable, dockerUnavailable } from "../../src/sandbox/isolation.js";
import { gitgood, spawnGitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn, sandboxesIn, trajectoryOf } from "../helpers/mcp.js";
import { waitFor } from "../helpers/processes.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

// Command agents run through the built CLI (`gitgood tool`): npm run build first.
const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`hostile-agent tests in namespace isolation skipped: ${noBwrap}\n`);

let fx: Fixture;
let easy: MergeSample;
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;
let home: string;
let server: net.Server;
let port: number;
const HOME_CANARY = `home-canary-${process.pid}-${Date.now()}`;
const SOURCE_CANARY = `source-canary-${process.pid}-${Date.now()}`;
const TOKEN = `tcp-token-${process.pid}`;

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
  dirs = tempDirs();
  samplesFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  home = path.join(path.dirname(dirs.out), "home");
  mkdirSync(home);
  writeFileSync(path.join(home, "canary.txt"), `${HOME_CANARY}\n`);
  writeFileSync(path.join(fx.dir, "CANARY.txt"), `${SOURCE_CANARY}\n`);
  server = net.createServer((c) => c.end(`${TOKEN}\n`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  dirs.cleanup();
  fx.remove();
});

const sandboxRoot = (): string => process.env.GITGOOD_SANDBOX_ROOT as string;

/**
 * A hostile agent: it tries to read the sandbox's private state, the source repository, a canary in
 * the user's home, to write beside its work tree, in the sandbox root, in the source and in the home,
 * and to reach a TCP server on 127.0.0.1. It prints what it got; with `wait`, it then writes
 * `.attempted` in its work tree and waits for `.checked` (so the test can look at the host meanwhile).
 */
function hostileCommand(wait: boolean): string {
  const consts = { SRC: fx.dir, HOME_DIR: home, PORT: port, WAIT: wait };
  const code = `
const fs = require("fs"), net = require("net");
const { SRC, HOME_DIR, PORT, WAIT } = ${JSON.stringify(consts)};
const out = {};
const attempt = (name, fn) => { try { out[name] = "ok:" + fn(); } catch (e) { out[name] = "fail:" + (e.code || e.message); } };
const write = (p) => () => { fs.writeFileSync(p, "evil\\n"); return "written"; };
attempt("private", () => fs.readFileSync("../private/state.json", "utf8"));
attempt("sandbox", () => fs.readdirSync("..").join(","));
attempt("sourceList", () => fs.readdirSync(SRC).join(","));
attempt("sourceCanary", () => fs.readFileSync(SRC + "/CANARY.txt", "utf8"));
attempt("sourceHead", () => fs.readFileSync(SRC + "/.git/HEAD", "utf8"));
attempt("home", () => fs.readFileSync(HOME_DIR + "/canary.txt", "utf8"));
attempt("writeBeside", write("../evil.txt"));
attempt("writePrivate", write("../private/evil.txt"));
attempt("writeRoot", write("../../evil.txt"));
attempt("writeSource", write(SRC + "/evil.txt"));
attempt("writeHome", write(HOME_DIR + "/evil.txt"));
const finish = () => {
  process.stdout.write("RESULT " + JSON.stringify(out) + "\\n");
  if (!WAIT) process.exit(0);
  fs.writeFileSync(".attempted", "");
  const started = Date.now();
  const poll = setInterval(() => {
    if (fs.existsSync(".checked") || Date.now() - started > 60000) { clearInterval(poll); process.exit(0); }
  }, 50);
};
const sock = net.connect(PORT, "127.0.0.1");
sock.setTimeout(10000, () => { out.tcp = "fail:timeout"; sock.destroy(); finish(); });
sock.on("data", (d) => { out.tcp = "ok:" + String(d).trim(); sock.destroy(); finish(); });
sock.on("error", (e) => { out.tcp = "fail:" + e.code; finish(); });
`;
  return `cat > /dev/null; node -e ${shellQuote(code)}`;
}

function resultOf(out: string, key: string): Record<string, string> {
  const record = recordsIn(out)[key];
  const note = (trajectoryOf(out, record).events as { type: string; text?: string }[]).find((e) => e.type === "note")?.text ?? "";
  return JSON.parse(/RESULT (.*)/.exec(note)?.[1] ?? "null") as Record<string, string>;
}

describe("a hostile command agent in namespace isolation", () => {
  it("reaches nothing outside its work tree: no private state, no source, no home, no writes, no network", async (ctx) => {
    if (noBwrap) ctx.skip();
    const out = `${dirs.out}-hostile`;
    const run = gitgood(
      ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", hostileCommand(true), "--out", out],
      { env: { HOME: home } },
    );
    // While the agent waits, the sandbox is still there: look at it from the host.
    let work = "";
    await waitFor(() => {
      work = sandboxesIn(sandboxRoot()).map((d) => path.join(d, "work")).find((w) => existsSync(path.join(w, ".attempted"))) ?? "";
      return work !== "";
    }, "the agent made its attempts");
    const sandboxDir = path.dirname(work);
    expect(readdirSync(sandboxDir).sort()).not.toContain("evil.txt");
    expect(readdirSync(path.join(sandboxDir, "private"))).not.toContain("evil.txt");
    writeFileSync(path.join(work, ".checked"), "");
    const r = await run;
    expect(r.code, r.stderr).toBe(0);

    const got = resultOf(out, `${easy.id}.MCR`);
    for (const read of ["private", "sourceList", "sourceCanary", "sourceHead", "home"]) expect(got[read], read).toMatch(/^fail:/);
    expect(got.sandbox).toBe("ok:work");
    expect(got.writeSource).toMatch(/^fail:/);
    expect(got.writeHome).toMatch(/^fail:/);
    expect(got.tcp).toMatch(/^fail:/);
    // The host is unchanged: nothing written beside the sandbox, in the source or the home.
    expect(existsSync(path.join(sandboxRoot(), "evil.txt"))).toBe(false);
    expect(existsSync(path.join(fx.dir, "evil.txt"))).toBe(false);
    expect(existsSync(path.join(home, "evil.txt"))).toBe(false);
    expect(readFileSync(path.join(home, "canary.txt"), "utf8")).toBe(`${HOME_CANARY}\n`);
    expect(readFileSync(path.join(fx.dir, "CANARY.txt"), "utf8")).toBe(`${SOURCE_CANARY}\n`);
    expect(fx.git("status", "--porcelain").trim()).toBe("?? CANARY.txt");
    const trajectory = readFileSync(path.join(out, recordsIn(out)[`${easy.id}.MCR`]?.trajectory ?? ""), "utf8");
    expect(trajectory).not.toContain(HOME_CANARY);
    expect(trajectory).not.toContain(SOURCE_CANARY);
    expect(trajectory).not.toContain(TOKEN);
    expect(JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")).isolation).toEqual({
      mode: "namespace",
      network: false,
      docker_image: null,
      allow_read: [],
      pass_env: [],
      limits: expect.objectContaining({ processes: 512, memory_bytes: 4 * 1024 ** 3, disk_bytes: 2 * 1024 ** 3, accept_weak: false }),
    });
  });

  it("reaches the network with --network", async (ctx) => {
    if (noBwrap) ctx.skip();
    const out = `${dirs.out}-network`;
    const r = await gitgood(
      ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", hostileCommand(false), "--network", "--out", out],
      { env: { HOME: home } },
    );
    expect(r.code, r.stderr).toBe(0);
    const got = resultOf(out, `${easy.id}.MCR`);
    expect(got.tcp).toBe(`ok:${TOKEN}`);
    // The network is the only thing --network opens.
    expect(got.home).toMatch(/^fail:/);
    expect(got.sourceCanary).toMatch(/^fail:/);
  });

  it("still solves an MCR sample through 'gitgood tool', the calls recorded by the tool broker", async (ctx) => {
    if (noBwrap) ctx.skip();
    const out = `${dirs.out}-solve`;
    const resolve = JSON.stringify({ content: "io3 = 'topic'\n", reason: "take the topic side" });
    const command = [
      "cat > /dev/null",
      `gitgood tool view_current_merge_conflict_with --args '{"context_window_size": 1, "reason": "look"}' > /dev/null`,
      `gitgood tool resolve_current_merge_conflict_with --args ${shellQuote(resolve)}`,
    ].join(" && ");
    const r = await gitgood(["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", command, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const record = recordsIn(out)[`${easy.id}.MCR`];
    expect(record).toMatchObject({ status: "success", solved: true, tool_calls: 2 });
    const events = trajectoryOf(out, record).events as { type: string; tool?: string; output?: string }[];
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual([
      "view_current_merge_conflict_with",
      "resolve_current_merge_conflict_with",
    ]);
    expect(events.find((e) => e.type === "tool_result" && e.tool === "resolve_current_merge_conflict_with")?.output).toContain("The task is finished");
    expect(sandboxesIn(sandboxRoot())).toEqual([]);
  });
});

describe("where bubblewrap cannot run", () => {
  it("refuses to run in one line (exit 2) instead of running agents unisolated; --isolation none runs them, recorded and reported", () => {
    const fakeBin = path.join(path.dirname(dirs.out), "fake-bin");
    mkdirSync(fakeBin);
    writeFileSync(path.join(fakeBin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n", { mode: 0o755 });
    const env = { PATH: `${fakeBin}${path.delimiter}${process.env.PATH ?? ""}` };
    // The agent would leave a canary beside the sandboxes if it ran at all.
    const canary = path.join(path.dirname(dirs.out), "ran-unisolated");
    const command = `cat > /dev/null; touch ${shellQuote(canary)}`;
    const out = `${dirs.out}-closed`;
    const r = spawnGitgood(["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", command, "--out", out], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      "gitgood: --isolation namespace cannot run here (bwrap fails here: bwrap: No permissions to create a new namespace); " +
        "choose --isolation docker or --isolation none (agent programs then run unisolated, as your user)",
    ]);
    expect(existsSync(canary)).toBe(false);
    expect(existsSync(out)).toBe(false);

    const open = spawnGitgood(
      ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "command", "--command", command, "--isolation", "none", "--out", out],
      { env },
    );
    expect(open.code, open.stderr).toBe(0);
    expect(open.stderr.split("\n").filter((l) => l.startsWith("isolation:"))).toEqual([
      "isolation: none (asked for); agent programs run without isolation: they can read and write whatever your user can, and use the network",
    ]);
    expect(existsSync(canary)).toBe(true);
    expect(JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")).isolation).toEqual({
      mode: "none",
      network: true,
      docker_image: null,
      allow_read: [],
      pass_env: [],
      limits: expect.objectContaining({ enforcement: { processes: "none (no isolation)", memory: "none (no isolation)", disk: "none (no isolation)", cpu: "none (no isolation)" } }),
    });
    expect(open.stdout).toContain("isolation: none (agent programs ran unisolated, as asked with --isolation none)");
    const report = spawnGitgood(["report", out], { env });
    expect(report.stdout).toContain("isolation: none (agent programs ran unisolated, as asked with --isolation none)");
  }, 240_000);
});

describe("choosing the isolation on the command line", () => {
  it("refuses an unknown mode, and docker without a daemon, before anything is written", async (ctx) => {
    const out = `${dirs.out}-docker`;
    const bad = await gitgood(["run", samplesFile, "--repo", fx.dir, "--isolation", "chroot", "--out", out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--isolation takes namespace, docker, none");
    expect(bad.stderr).toContain("not 'chroot'");
    const why = dockerUnavailable();
    if (why === null) {
      process.stderr.write("the no-daemon case is not tried: a Docker daemon answers here\n");
      ctx.skip();
    }
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "command", "--command", "true", "--isolation", "docker", "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`gitgood: --isolation docker cannot run here (${why}); choose --isolation namespace or --isolation none (agent programs then run unisolated, as your user)`);
    expect(existsSync(out)).toBe(false);
  });
});
