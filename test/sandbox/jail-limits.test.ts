import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execIn } from "../../src/sandbox/exec.js";
import { cgroupParents } from "../../src/sandbox/isolation/cgroup.js";
import { bwrapUnavailable, chooseIsolation, dockerArgs, passwdStandIn, sizeOption, type Isolation, type JailLimits } from "../../src/sandbox/isolation.js";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import { Repo } from "../../src/git/repo.js";
import { buildMergeFixture, useSandboxRoot } from "../helpers/scenarios.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`jail limit tests skipped: ${noBwrap}\n`);

const MiB = 1024 * 1024;
/** Small limits, so that nothing here allocates much. */
const SMALL: JailLimits = { processes: 32, memory: 64 * MiB, disk: 16 * MiB, cpu: 2 };

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-limits-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
/** Runs a shell command in a fresh work tree, jailed with `limits`. */
async function jailed(command: string, limits: Partial<JailLimits> = SMALL, timeout = 60) {
  const work = path.join(scratch, `w-${n++}`);
  mkdirSync(work);
  const isolation: Isolation = chooseIsolation({ mode: "namespace", limits });
  const r = await execIn(work, ["sh", "-c", command], { timeout }, { work, isolation });
  return { ...r, out: r.stdout.toString("utf8"), err: r.stderr.toString("utf8"), work };
}

/** The cgroups of this process's jails still present (each is removed once its program has ended). */
function groupsLeft(): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let names: string[] = [];
    try {
      names = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(`gitgood-${process.pid}-`)) out.push(path.join(dir, name));
      else if (depth > 0) walk(path.join(dir, name), depth - 1);
    }
  };
  walk("/sys/fs/cgroup", 4);
  return out;
}

describe.skipIf(noBwrap !== null)("the limits of a jail", () => {
  it("bound a fork bomb: it is stopped for its process limit, and the host still starts processes afterwards", { timeout: 90_000 }, async () => {
    const r = await jailed("bomb() { bomb | bomb & }; bomb; sleep 120");
    expect(r.timedOut, r.err).toBe(false);
    expect(r.limit).toBe("processes");
    const after = await execIn(scratch, ["sh", "-c", "for i in 1 2 3 4 5 6 7 8; do true & done; wait; echo alive"]);
    expect(after.stdout.toString("utf8").trim()).toBe("alive");
    expect(groupsLeft()).toEqual([]);
  });

  it("stop a memory hog for its memory limit", { timeout: 60_000 }, async () => {
    const r = await jailed("python3 -c 'x = bytearray(512 << 20); print(\"allocated\", len(x))'");
    expect(r.out).not.toContain("allocated");
    expect(r.limit).toBe("memory");
  });

  it("stop a program filling the work tree beyond the disk limit", { timeout: 60_000 }, async () => {
    const r = await jailed("i=0; while :; do head -c 4000000 /dev/zero > f$i; i=$((i + 1)); done", SMALL, 30);
    expect(r.timedOut).toBe(false);
    expect(r.limit).toBe("disk");
  });

  it("count the work tree's growth from before the attempt's first program: programs one after another share the budget", { timeout: 60_000 }, async () => {
    const work = path.join(scratch, `shared-${n++}`);
      mkdirSync(work);
    const isolation = chooseIsolation({ mode: "namespace", limits: SMALL });
    const disk = { baseline: null };
    const place = { work, isolation, disk };
    // Two programs write 6 MB each and end; the third writes 6 MB more and waits: 18 MB is over the 16 MB budget.
    for (const i of [0, 1]) {
      const r = await execIn(work, ["sh", "-c", `head -c 6000000 /dev/zero > part${i}`], { timeout: 30 }, place);
      expect(r.limit).toBeNull();
    }
    const third = await execIn(work, ["sh", "-c", "head -c 6000000 /dev/zero > part2; sleep 30"], { timeout: 25 }, place);
    expect(third.timedOut).toBe(false);
    expect(third.limit).toBe("disk");
  });

  it("keep /tmp to the disk limit: files together bigger than it cannot be written there", { timeout: 60_000 }, async () => {
    // Eight files of 4 MB, each under the per-file limit, 32 MB together.
    const r = await jailed("for i in 1 2 3 4 5 6 7 8; do head -c 4000000 /dev/zero > /tmp/fill$i 2>/dev/null; done; cat /tmp/fill* | wc -c");
    expect(Number(r.out.trim())).toBeLessThanOrEqual(16 * MiB);
  });

  it("stop a program spinning past its CPU time", { timeout: 60_000 }, async () => {
    const r = await jailed("while :; do :; done", { ...SMALL, cpu: 1 });
    expect(r.timedOut).toBe(false);
    expect(r.limit).toBe("cpu");
  });

  it("let an ordinary program run as before", { timeout: 60_000 }, async () => {
    const r = await jailed("for i in 1 2 3; do true & done; wait; python3 -c 'x = bytearray(8 << 20); print(len(x))'; head -c 1000000 /dev/zero > f; echo ok");
    expect(r.code, r.err).toBe(0);
    expect(r.limit).toBeNull();
    expect(r.out).toContain("ok");
  });

  it("end the sandbox's attempt: the first limit a program runs into is reported once", { timeout: 120_000 }, async () => {
    const root = useSandboxRoot();
    const { fx } = buildMergeFixture();
    const sandbox = await Sandbox.create(await Repo.open(fx.dir), { label: "limits", store: { packs: [], shallow: [] } });
    try {
      sandbox.isolate(chooseIsolation({ mode: "namespace", limits: SMALL }));
      const seen: string[] = [];
      sandbox.onLimit = (limit) => seen.push(limit);
      await sandbox.exec(["sh", "-c", "python3 -c 'x = bytearray(512 << 20)'"]);
      await sandbox.exec(["sh", "-c", "bomb() { bomb | bomb & }; bomb; sleep 60"]);
      expect(seen).toEqual(["memory"]);
      expect(sandbox.limitHit).toBe("memory");
    } finally {
      sandbox.remove();
      fx.remove();
      root.cleanup();
    }
  });
});

describe.skipIf(noBwrap !== null)("a limit this host cannot enforce", () => {
  it("is refused in one line naming it, unless weaker enforcement is accepted, which the isolation then says", () => {
    const path0 = process.env.PATH;
    // Without prlimit on PATH no rlimit can be set: the CPU time goes unenforced.
    process.env.PATH = scratch;
    try {
      expect(() => chooseIsolation({ mode: "namespace", limits: { ...SMALL, cpu: 10 } })).toThrow(
        /^--timeout 10 \(CPU time per process\) cannot be enforced by --isolation namespace here \(only: none \(no prlimit\)\); pass --accept-weak-limits to run with that$/,
      );
      const weak = chooseIsolation({ mode: "namespace", limits: { ...SMALL, cpu: 10 }, acceptWeakLimits: true });
      expect(weak.limits?.enforcement.cpu).toBe("none (no prlimit)");
      expect(weak.acceptWeakLimits).toBe(true);
    } finally {
      process.env.PATH = path0;
    }
  });
});

describe.skipIf(noBwrap !== null || cgroupParents().length === 0)("the cgroups of a killed gitgood", () => {
  it("are removed by the next gitgood process that makes jails", { timeout: 60_000 }, () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    const left = cgroupParents().map((parent) => path.join(parent, `gitgood-${dead}-1`));
    for (const dir of left) mkdirSync(dir);
    try {
      // A fresh process (the built one) probes the hierarchies, as the first jail of a run does.
      const probe = `import(${JSON.stringify(path.join(ROOT, "dist/sandbox/isolation/cgroup.js"))}).then((m) => m.cgroupParents())`;
      const r = spawnSync(process.execPath, ["-e", probe], { cwd: ROOT, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      expect(left.filter((dir) => existsSync(dir))).toEqual([]);
    } finally {
      for (const dir of left) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the docker backend's limits", () => {
  it("go to docker run as --pids-limit, --memory (swap included), ulimits and tmpfs sizes", () => {
    const limits = { ...SMALL, enforcement: { processes: "", memory: "", disk: "", cpu: "" } };
    const iso: Isolation = { mode: "docker", network: false, dockerImage: "node:20-bookworm", allowRead: [], passEnv: [], limits };
    const args = dockerArgs(iso, { work: scratch, cwd: scratch, env: {} }, "gitgood-test", ["true"]);
    const pairs = args.slice(0, -1).map((a, i) => `${a} ${String(args[i + 1])}`);
    expect(pairs).toEqual(
      expect.arrayContaining([
        "--pids-limit 32",
        `--memory ${64 * MiB}`,
        `--memory-swap ${64 * MiB}`,
        `--ulimit fsize=${16 * MiB}:${16 * MiB}`,
        "--ulimit cpu=2:2",
        `--tmpfs /tmp:rw,exec,mode=1777,size=${16 * MiB}`,
      ]),
    );
  });
});

describe("limit options", () => {
  it("take sizes with K, M, G, T and refuse anything below 1M in one line", () => {
    const parse = sizeOption("--max-memory");
    expect(parse("4G")).toBe(4 * 1024 * MiB);
    expect(parse("512M")).toBe(512 * MiB);
    expect(parse("1.5GiB")).toBe(1536 * MiB);
    expect(() => parse("12")).toThrow(/^--max-memory takes a size of at least 1M/);
    expect(() => parse("lots")).toThrow(/not 'lots'/);
  });
});

describe.skipIf(noBwrap !== null)("a jail's /etc", () => {
  const canary = `/etc/gitgood-canary-${process.pid}`;
  let planted = false;
  beforeAll(() => {
    try {
      writeFileSync(canary, "secret\n", { mode: 0o644 });
      planted = true;
    } catch {
      process.stderr.write(`cannot plant ${canary}: the canary part is skipped\n`);
    }
  });
  afterAll(() => rmSync(canary, { force: true }));

  it("shows neither the host's secrets nor its other files, but what programs need: users resolve, git and python3 run", { timeout: 60_000 }, async () => {
    const r = await jailed(
      [
        `cat ${canary} 2>/dev/null && echo CANARY-READ`,
        "test -e /etc/shadow && echo SHADOW-SEEN",
        "test -e /etc/ssl/private && echo SSL-PRIVATE-SEEN",
        "id -un",
        "git --version >/dev/null && echo git-ok",
        "python3 -c 'import ssl, pwd; print(\"python-ok\", pwd.getpwuid(0).pw_name)'",
        "test -s /etc/ssl/certs/ca-certificates.crt && echo certs-ok",
      ].join("; "),
    );
    if (planted) expect(existsSync(canary)).toBe(true);
    expect(r.out).not.toContain("CANARY-READ");
    expect(r.out).not.toContain("SHADOW-SEEN");
    expect(r.out).not.toContain("SSL-PRIVATE-SEEN");
    expect(r.out).toContain("git-ok");
    expect(r.out).toContain("python-ok root");
    if (existsSync("/etc/ssl/certs/ca-certificates.crt")) expect(r.out).toContain("certs-ok");
    expect(r.out.split("\n")).toContain(process.getuid?.() === 0 ? "root" : "agent");
  });

  it("names in its passwd stand-in only root, the user programs run as, and nobody", () => {
    expect(passwdStandIn(1000, 1000).passwd.split("\n").filter(Boolean).map((l) => l.split(":")[0])).toEqual(["root", "agent", "nobody"]);
    expect(passwdStandIn(0, 0).passwd).not.toContain("agent");
  });
});
