import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitGoodError } from "../../src/errors.js";
import { checkClonePattern, cloneUrlOf } from "../../src/queue/clone.js";
import { connectionOptions } from "../../src/queue/connection.js";
import { identityHash, jobIdOf, signJob, signResult, type JobData, type Settled } from "../../src/queue/jobs.js";
import { SharedConnectionLimit } from "../../src/queue/limit.js";
import { RunQueue, type Sink } from "../../src/queue/producer.js";
import { queueSecret } from "../../src/queue/secret.js";
import { queueStatus } from "../../src/queue/status.js";
import { parseQueueAddress, type QueueAddress } from "../../src/queue/url.js";
import { startWorker, type RunningWorker } from "../../src/queue/worker.js";
import { RESULTS_SCHEMA_VERSION } from "../../src/runs/record.js";
import { resultRecord } from "../../src/runs/result.js";
import { mergeSample } from "../helpers/dataset.js";
import { freePort, startRedis, type TestRedis } from "../helpers/redis.js";

/** The secret the producers and workers of these tests share. */
const secret = queueSecret(undefined, { GITGOOD_QUEUE_SECRET: "the-queue-tests-shared-secret" });

let redis: TestRedis;
let scratch: string;
beforeAll(async () => {
  redis = await startRedis();
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-queue-"));
});
afterAll(async () => {
  await redis.stop();
  rmSync(scratch, { recursive: true, force: true });
});

let queues = 0;
/** A queue of its own for each test. */
function address(): QueueAddress {
  return parseQueueAddress(redis.url, `t${++queues}`);
}

const samples = Array.from({ length: 6 }, (_, i) => mergeSample({ name: "acme/calc", index: i }));
const jobs = samples.map((s) => ({ key: `${s.id}.MCR`, ticket: { sample: s.id } }));

/** What a worker's executor returns for a job: a solved record, with a trajectory of `events` entries. */
function settledFor(data: JobData, events = 1): Settled {
  const sample = samples.find((s) => `${s.id}.MCR` === data.key);
  if (!sample) throw new Error(`no sample for ${data.key}`);
  const record = resultRecord({
    sample,
    scenario: "MCR",
    agent: "oracle",
    startedAt: new Date(0),
    durationMs: 1,
    turns: 1,
    toolCalls: 1,
    tokens: { prompt: 0, completion: 0 },
    trajectory: `trajectories/${data.key}.json`,
    outcome: { scored: { scores: { exact_match: true }, solved: true } },
  });
  const trajectory = {
    schema_version: RESULTS_SCHEMA_VERSION,
    sample_id: sample.id,
    scenario: "MCR",
    agent: "oracle",
    sample,
    events: Array.from({ length: events }, (_, i) => ({ type: "note", text: `${i} ${Math.random()}`, at_ms: i })),
  } satisfies Settled["trajectory"];
  return { record, trajectory };
}

/** A sink that keeps what it is given. */
function memorySink(): Sink & { written: Settled[]; failures: { key: string; error: GitGoodError }[] } {
  const written: Settled[] = [];
  const failures: { key: string; error: GitGoodError }[] = [];
  return { written, failures, write: (s) => void written.push(s), failed: (d, e) => void failures.push({ key: d.key, error: e }) };
}

describe("queue addresses", () => {
  it("reads redis://HOST:PORT/DB and refuses anything else in one line", () => {
    expect(parseQueueAddress("redis://10.0.0.5:6380/2")).toMatchObject({ host: "10.0.0.5", port: 6380, db: 2, name: "gitgood" });
    expect(parseQueueAddress("redis://:secret@q.example:7000").shown).toBe("redis://q.example:7000/0");
    for (const bad of ["http://h:1", "redis://h:1/x", "redis://h:1/2?tls=1", "redis:///3", "h:6379", "redis://h:99999"]) {
      expect(() => parseQueueAddress(bad), bad).toThrowError(/^--queue .* is not a Redis URL \(.*\); give redis:\/\/HOST:PORT\[\/DB\], or rediss:\/\/ for TLS$/);
    }
    expect(() => parseQueueAddress("redis://h:1", "a:b")).toThrowError(/--queue-name "a:b" is not a queue name/);
  });
});

describe("a --clone worker's remotes", () => {
  it("takes plain remotes and file:// under a directory; refuses remote helpers, bare paths and names that leave the directory", () => {
    expect(checkClonePattern("https://github.com/{name}.git")).toBeNull();
    expect(checkClonePattern("git@github.com:{owner}/{repo}.git")).toBeNull();
    expect(checkClonePattern("file:///srv/mirrors/{owner}+{repo}/repo")).toBe("/srv/mirrors");
    for (const [bad, why] of [
      ["ext::sh -c touch% /tmp/x-{name}", "git remote helpers are not taken"],
      ["fd::7,8/{name}", "git remote helpers are not taken"],
      ["/srv/mirrors/{name}", "it is not a URL; a local directory is file:///DIR/{name}"],
      ["--upload-pack=touch /tmp/x {name}", "it starts with '-'"],
      ["ftp://h/{name}", "the scheme ftp is not taken"],
    ]) {
      expect(() => checkClonePattern(bad as string), bad).toThrowError(`--url-pattern ${bad} is not a remote a worker clones from (${why}); give https://, ssh://, git://, user@host:path or file:///DIR/{name}`);
    }
    const sample = samples[0] as (typeof samples)[number];
    expect(cloneUrlOf("file:///srv/m/{name}", "/srv/m", sample)).toBe("file:///srv/m/acme/calc");
    expect(() => cloneUrlOf("file:///srv/m/{name}", "/srv/m", { ...sample, name: "../etc" })).toThrowError(/names no owner\/repo: '\.\.\/etc'$/);
    expect(() => cloneUrlOf("file:///srv/m/{name}", "/srv/m", { ...sample, name: "acme/.." })).toThrowError(/names no owner\/repo/);
  });
});

describe("the run's queue", () => {
  it("enqueues each key once, two workers run them, the producer writes each once and frees the queue", async () => {
    const a = address();
    const identity = { samples: "x.jsonl", agent: "oracle" };
    const q = await RunQueue.open(a, identity, { secret });
    expect(await q.enqueue(jobs)).toEqual({ added: 6, present: 0 });
    // A second producer of the same run adds nothing: the job ids are the run's and the key's.
    expect(await q.enqueue(jobs)).toEqual({ added: 0, present: 6 });
    const ran: string[] = [];
    const workers: RunningWorker[] = [];
    for (let i = 0; i < 2; i++) {
      workers.push(await startWorker({ address: a, secret, concurrency: 2, run: async (d) => (ran.push(d.key), settledFor(d)) }));
    }
    const sink = memorySink();
    await q.drain(jobs, sink);
    expect(sink.written.map((s) => s.record.key).sort()).toEqual(jobs.map((j) => j.key).sort());
    expect(ran.sort()).toEqual(jobs.map((j) => j.key).sort());
    expect(sink.written[0]?.trajectory.events).toHaveLength(1);
    const status = await queueStatus(a);
    expect(status).toMatchObject({ waiting: 0, active: 0, completed: 0, failed: 0, run: identityHash(identity) });
    expect(status.workers, JSON.stringify(status.workers)).toHaveLength(2);
    expect(status.workers.reduce((n, w) => n + w.done, 0)).toBe(6);
    await q.release();
    expect((await queueStatus(a)).run).toBeNull();
    await Promise.all(workers.map((w) => w.close()));
    await q.close();
  });

  it("refuses a queue holding another run's jobs, and an unreachable server, in one line each", async () => {
    const a = address();
    const first = await RunQueue.open(a, { agent: "oracle" }, { secret });
    await first.enqueue(jobs.slice(0, 1));
    await first.close();
    const other = RunQueue.open(a, { agent: "baseline" }, { secret });
    await expect(other).rejects.toThrowError(/^the queue t\d+ at redis:\/\/127\.0\.0\.1:\d+\/0 holds the jobs of another run \(\w+, this one is \w+\); use another --queue-name, or collect that run first$/);
    await expect(other).rejects.toMatchObject({ code: "QUEUE_MISMATCH" });
    const nobody = parseQueueAddress(`redis://127.0.0.1:${await freePort()}`);
    await expect(RunQueue.open(nobody, {}, { secret })).rejects.toThrowError(/^cannot reach the queue's Redis at redis:\/\/127\.0\.0\.1:\d+\/0: ECONNREFUSED$/);
  });

  it("a job that fails on one worker for an infrastructure reason is run by another; one failing everywhere is recorded as failed", async () => {
    const a = address();
    // The retry waits long enough for the second worker to start: then the broken worker hands the job over.
    const q = await RunQueue.open(a, { agent: "oracle", test: "handover" }, { secret, attempts: 3, backoffMs: 2000 });
    await q.enqueue(jobs.slice(0, 2));
    const brokenLog: string[] = [];
    const broken = await startWorker({
      address: a,
      secret,
      deferMs: 50,
      log: (line) => brokenLog.push(line),
      run: () => Promise.reject(new GitGoodError("MISSING_COMMIT", "the clone of acme/calc lacks commit abc")),
    });
    const deadline = Date.now() + 20_000;
    while (!brokenLog.some((l) => l.startsWith("failed")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(brokenLog.find((l) => l.startsWith("failed"))).toMatch(/^failed acme_calc_merge_000\d\.MCR: MISSING_COMMIT: the clone of acme\/calc lacks commit abc$/);
    const good = await startWorker({ address: a, secret, run: async (d) => settledFor(d) });
    const sink = memorySink();
    await q.drain(jobs.slice(0, 2), sink);
    expect(sink.failures).toEqual([]);
    expect(sink.written.map((s) => s.record.key).sort()).toEqual(jobs.slice(0, 2).map((j) => j.key).sort());
    await Promise.all([good.close(), broken.close(), q.close()]);
    // With no other worker, the broken one runs the job in the end; every try fails, and the job is failed once.
    const alone = address();
    const q2 = await RunQueue.open(alone, { agent: "oracle", test: "alone" }, { secret, attempts: 3, backoffMs: 20 });
    const lone = await startWorker({ address: alone, secret, run: () => Promise.reject(new GitGoodError("MISSING_COMMIT", "the clone of acme/calc lacks commit abc")) });
    await q2.enqueue(jobs.slice(2, 3));
    await q2.drain(jobs.slice(2, 3), sink);
    expect(sink.failures.map((f) => [f.key, f.error.code])).toEqual([[jobs[2]?.key, "WORKER_FAILED"]]);
    expect(sink.failures[0]?.error.message).toMatch(/^every try on the workers failed: MISSING_COMMIT: the clone of acme\/calc lacks commit abc \(on .+\)$/);
    await Promise.all([lone.close(), q2.close()]);
  }, 60_000);

  it("a trajectory over the size limit goes by path to the spill directory, not into Redis, and is removed once written", async () => {
    const a = address();
    const spill = path.join(scratch, "spill");
    const q = await RunQueue.open(a, { agent: "oracle", test: "spill" }, { secret, spillDir: spill });
    await q.enqueue(jobs.slice(0, 2));
    const w = await startWorker({ address: a, secret, spillDir: spill, spillBytes: 2000, run: async (d) => settledFor(d, d.key === jobs[0]?.key ? 2000 : 1) });
    const raw = new Redis(connectionOptions(a));
    const sink = memorySink();
    let bigInRedis = -1;
    await q.drain(jobs.slice(0, 2), {
      ...sink,
      write: (s) => {
        sink.write(s);
        if (s.record.key === jobs[0]?.key && bigInRedis === -1) bigInRedis = readdirSync(spill).length;
      },
    });
    expect(bigInRedis).toBe(1);
    expect(sink.written.find((s) => s.record.key === jobs[0]?.key)?.trajectory.events).toHaveLength(2000);
    expect(readdirSync(spill)).toEqual([]);
    expect(await raw.exists(`bull:${a.name}:${jobIdOf(q.run, jobs[0]?.key ?? "")}`)).toBe(0);
    raw.disconnect();
    await w.close();
    await q.close();
    expect(existsSync(spill)).toBe(true);
  });

  it("takes a spilled trajectory only as a file of the job in its own spill directory: a link, a path or another job's name is one BAD_RESULT line", async () => {
    const a = address();
    const spill = path.join(scratch, "spill-hostile");
    mkdirSync(spill);
    // The canary outside the spill directory is a valid trajectory: read by mistake, it would be recorded.
    const canary = path.join(scratch, "canary.json.gz");
    const canaryBytes = gzipSync(JSON.stringify(settledFor({ run: "r", key: jobs[0]?.key ?? "", ticket: null }).trajectory));
    writeFileSync(canary, canaryBytes);
    const [k0, k1, k2, k3, k4] = jobs.map((j) => j.key) as [string, string, string, string, string];
    symlinkSync(canary, path.join(spill, `${k0}.evil.json.gz`));
    writeFileSync(path.join(spill, `${k3}.w.json.gz`), canaryBytes);
    // What whoever writes to the queue's Redis may claim a worker spilled, by job: a link named for the job,
    // a way out, another job's file, a path; and one honest name.
    const forged: Record<string, string> = {
      [k0]: `${k0}.evil.json.gz`,
      [k1]: `../${path.basename(canary)}`,
      [k2]: `${k3}.w.json.gz`,
      [k3]: `${k3}.w.json.gz`,
      [k4]: canary,
    };
    const victims = jobs.slice(0, 5);
    const q = await RunQueue.open(a, { agent: "oracle", test: "hostile-spill" }, { secret, spillDir: spill });
    await q.enqueue(victims);
    const liar = new Worker(
      a.name,
      async (job) => {
        const data = job.data as JobData;
        // A worker holding the secret signs what it sends: the names are refused for what they are.
        const record = settledFor(data).record;
        return { key: data.key, worker: "w", record, trajectory: { spilled: forged[data.key] }, sig: signResult(secret, data.run, { key: data.key, worker: "w", record }, canaryBytes) };
      },
      { connection: connectionOptions(a) },
    );
    const sink = memorySink();
    await q.drain(victims, sink);
    await liar.close();
    await q.close();
    // Job 3 names a file of its own in the spill directory: taken, then removed.
    expect(sink.written.map((s) => s.record.key)).toEqual([k3]);
    expect(existsSync(path.join(spill, `${k3}.w.json.gz`))).toBe(false);
    expect(sink.failures.map((f) => [f.key, f.error.code]).sort()).toEqual([k0, k1, k2, k4].map((k) => [k, "BAD_RESULT"]).sort());
    const why = Object.fromEntries(sink.failures.map((f) => [f.key, f.error.message]));
    expect(why[k0]).toMatch(/^the trajectory of \S+ was spilled as ".*\.evil\.json\.gz", which this producer does not take: it is a symbolic link$/);
    expect(why[k1]).toMatch(/which this producer does not take: it is not a file name of that job \(\S+\.WORKER\.json\.gz\)$/);
    expect(why[k2]).toMatch(/which this producer does not take: it is not a file name of that job/);
    expect(why[k4]).toMatch(/which this producer does not take: it is not a file name of that job/);
    // The canary is neither read into the run nor deleted.
    expect(readFileSync(canary)).toEqual(canaryBytes);
    expect(existsSync(path.join(spill, `${k0}.evil.json.gz`))).toBe(true);
  });
});

describe("the shared connection limit", () => {
  it("holds model requests in flight to --max-connections across clients", async () => {
    const a = address();
    const clients = [new Redis(connectionOptions(a)), new Redis(connectionOptions(a))];
    const limits = clients.map((c) => new SharedConnectionLimit(c, `gitgood:${a.name}:connections`, 2));
    let inFlight = 0;
    let peak = 0;
    let started = 0;
    // Each request holds its slot until a second one is in flight beside it (or no other can come): the
    // limit is reached by events, not by how long a request happens to take; a limit stricter than 2 stalls here.
    const request = async (): Promise<void> => {
      inFlight++;
      started++;
      peak = Math.max(peak, inFlight);
      const deadline = Date.now() + 30_000;
      while (inFlight < 2 && started < 12) {
        if (Date.now() > deadline) throw new Error("no second request came in flight");
        await new Promise((r) => setTimeout(r, 5));
      }
      inFlight--;
    };
    await Promise.all(Array.from({ length: 12 }, (_, i) => limits[i % 2]?.run(request, undefined, "m")));
    expect(peak).toBe(2);
    const aborted = new AbortController();
    aborted.abort();
    await expect(limits[0]?.run(request, aborted.signal, "m")).rejects.toMatchObject({ code: "ABORTED" });
    for (const c of clients) c.disconnect();
  });
});

describe("what a writer of the queue's Redis can do", () => {
  it("a job that is unsigned, signed with another secret, or replayed under another key is refused by the worker in one line and never run", async () => {
    const a = address();
    const other = queueSecret(undefined, { GITGOOD_QUEUE_SECRET: "another-secret-than-the-workers" });
    const run = identityHash({ agent: "oracle", test: "forged-jobs" });
    const [k0, k1, k2] = jobs.map((j) => j.key) as [string, string, string];
    const signed = signJob(secret, { run, key: k2, ticket: { sample: "x" } });
    const raw = new Queue(a.name, { connection: connectionOptions(a) });
    await raw.add(k0, { run, key: k0, ticket: { sample: "x" } }, { jobId: jobIdOf(run, k0), attempts: 3 });
    await raw.add(k1, signJob(other, { run, key: k1, ticket: { sample: "x" } }), { jobId: jobIdOf(run, k1), attempts: 3 });
    // A job the producer signed, copied under another key: its signature covers its id.
    await raw.add("copy", { ...signed, key: k1 }, { jobId: `${run}.copy`, attempts: 3 });
    const ran: string[] = [];
    const log: string[] = [];
    const w = await startWorker({ address: a, secret, log: (l) => log.push(l), run: async (d) => (ran.push(d.key), settledFor(d)) });
    const deadline = Date.now() + 20_000;
    while (((await raw.getJobCounts("failed")).failed ?? 0) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await w.close();
    expect(ran).toEqual([]);
    expect(log.filter((l) => l.startsWith("refused ")).sort()).toEqual(
      [jobIdOf(run, k0), jobIdOf(run, k1), `${run}.copy`].sort().map((id) => expect.stringMatching(new RegExp(`^refused ${id.replace(/\./g, "\\.")}: BAD_SIGNATURE: the job \\S+ is not signed with this queue's secret`))),
    );
    // Refused for what they are: failed after one try each, not retried.
    const failed = await raw.getJobs(["failed"]);
    expect(failed.map((j) => j.attemptsMade)).toEqual([1, 1, 1]);
    await raw.close();
  });

  it("a result written straight to Redis is written to the run only when a worker holding the secret signed it for this run's job and agent", async () => {
    const a = address();
    const identity = { agent: "oracle", test: "forged-results" };
    const q = await RunQueue.open(a, identity, { secret });
    const victims = jobs.slice(0, 4);
    const [k0, k1, k2, k3] = victims.map((j) => j.key) as [string, string, string, string];
    await q.enqueue(victims);
    const forger = new Worker(
      a.name,
      async (job) => {
        const data = job.data as JobData;
        const settled = settledFor(data);
        const gz = gzipSync(JSON.stringify(settled.trajectory));
        const base = { key: data.key, worker: "w", trajectory: { gzip: gz.toString("base64") } };
        // k0: unsigned; k1: signed for another run's job of the same key; k2: signed, of another agent; k3: honest.
        if (data.key === k0) return { ...base, record: settled.record };
        if (data.key === k1) return { ...base, record: settled.record, sig: signResult(secret, identityHash({ other: true }), { ...base, record: settled.record }, gz) };
        const record = data.key === k2 ? { ...settled.record, agent: "baseline" } : settled.record;
        return { ...base, record, sig: signResult(secret, data.run, { ...base, record }, gz) };
      },
      { connection: connectionOptions(a) },
    );
    const sink = memorySink();
    await q.drain(victims, sink);
    await forger.close();
    await q.close();
    expect(sink.written.map((s) => s.record.key)).toEqual([k3]);
    const why = Object.fromEntries(sink.failures.map((f) => [f.key, `${f.error.code}: ${f.error.message}`]));
    expect(why[k0]).toMatch(/^BAD_SIGNATURE: the result of \S+ on the queue is not signed with this queue's secret/);
    expect(why[k1]).toMatch(/^BAD_SIGNATURE: /);
    expect(why[k2]).toMatch(/^BAD_RESULT: the result of \S+ on the queue is a record of agent baseline, this run's is oracle$/);
  });

  it("a job on the queue that its producer did not sign is dropped by the producer, not recorded", async () => {
    const a = address();
    const q = await RunQueue.open(a, { agent: "oracle", test: "stray" }, { secret });
    await q.claim();
    const raw = new Queue(a.name, { connection: connectionOptions(a) });
    const [k0] = jobs.map((j) => j.key) as [string];
    await raw.add(k0, { run: q.run, key: k0, ticket: {} }, { jobId: jobIdOf(q.run, k0) });
    // A Redis writer's "worker" fails it with a reason of its choosing.
    const fake = new Worker(a.name, () => Promise.reject(new Error("POLICY_REFUSED: made up")), { connection: connectionOptions(a) });
    const deadline = Date.now() + 20_000;
    while (((await raw.getJobCounts("failed")).failed ?? 0) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await fake.close();
    expect((await raw.getJobCounts("failed")).failed).toBe(1);
    const sink = memorySink();
    await q.collect(sink);
    expect(sink.written).toEqual([]);
    expect(sink.failures).toEqual([]);
    await raw.close();
    await q.close();
  });
});

describe("a queue secret", () => {
  it("is required on both sides, of at least 16 characters, from the variable or a file, in one line", () => {
    expect(() => queueSecret(undefined, {})).toThrowError(/^the queue needs a secret shared by the producer and every worker: set GITGOOD_QUEUE_SECRET or give --secret-file FILE/);
    expect(() => queueSecret(undefined, { GITGOOD_QUEUE_SECRET: "short" })).toThrowError("the queue secret of GITGOOD_QUEUE_SECRET is shorter than 16 characters");
    const file = path.join(scratch, "secret");
    writeFileSync(file, "a-secret-from-a-file-0123\n");
    expect(queueSecret(file, {}).key.toString()).toBe("a-secret-from-a-file-0123");
    expect(() => queueSecret(path.join(scratch, "none"), {})).toThrowError(/^--secret-file \S+ cannot be read$/);
  });
});

describe("a Redis with a password and an ACL user", () => {
  it("runs a queue end to end as the ACL user, and refuses a client without the password in one line", async () => {
    const guarded = await startRedis({ args: ["--requirepass", "default-password-1", "--user", "gitgood", "on", ">acl-password-1", "~bull:*", "~gitgood:*", "&*", "+@all"] });
    try {
      const base = new URL(guarded.url);
      const asUser = parseQueueAddress(`redis://gitgood:acl-password-1@${base.host}/0`, "acl");
      const q = await RunQueue.open(asUser, { agent: "oracle", test: "acl" }, { secret });
      await q.enqueue(jobs.slice(0, 2));
      const w = await startWorker({ address: parseQueueAddress(`redis://:default-password-1@${base.host}/0`, "acl"), secret, run: async (d) => settledFor(d) });
      const sink = memorySink();
      await q.drain(jobs.slice(0, 2), sink);
      expect(sink.written.map((s) => s.record.key).sort()).toEqual(jobs.slice(0, 2).map((j) => j.key).sort());
      await w.close();
      await q.close();
      await expect(RunQueue.open(parseQueueAddress(guarded.url, "acl"), {}, { secret })).rejects.toThrowError(/^cannot reach the queue's Redis at redis:\/\/127\.0\.0\.1:\d+\/0: NOAUTH/);
      await expect(RunQueue.open(parseQueueAddress(`redis://gitgood:wrong-password@${base.host}/0`, "acl"), {}, { secret })).rejects.toThrowError(
        /^cannot reach the queue's Redis at redis:\/\/127\.0\.0\.1:\d+\/0: WRONGPASS/,
      );
    } finally {
      await guarded.stop();
    }
  });
});
