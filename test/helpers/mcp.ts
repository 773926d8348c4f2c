import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { main } from "../../src/cli/main.js";
import { sampleToJson, type ChainSample, type MergeSample } from "../../src/dataset/sample.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { BIN, captureSink, setEnv } from "./cli.js";
import type { Fixture } from "./fixture.js";
import { blob, buildMergeFixture, buildSpacedChainFixture, resolutionsFor } from "./scenarios.js";

/**
 * Two repositories laid out as clones under one directory (`repos/acme/widgets`: the merge fixture,
 * `repos/acme/chain`: the spaced chain), and one samples file with the merge sample and the chain sample.
 */
export interface McpFixtures {
  root: string;
  sandboxRoot: string;
  repos: string;
  samples: string;
  mergeFx: Fixture;
  merge: string;
  mergeSample: MergeSample;
  chainFx: Fixture;
  chainSample: ChainSample;
  /** The chain's commits, oldest first. */
  commits: string[];
  cleanup(): void;
}

export function buildMcpFixtures(): McpFixtures {
  const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-mcp-"));
  const m = buildMergeFixture();
  const c = buildSpacedChainFixture();
  const chainSample: ChainSample = { ...c.sample, name: "acme/chain" };
  const repos = path.join(root, "repos");
  mkdirSync(path.join(repos, "acme"), { recursive: true });
  symlinkSync(m.fx.dir, path.join(repos, "acme", "widgets"));
  symlinkSync(c.fx.dir, path.join(repos, "acme", "chain"));
  const samples = path.join(root, "samples.jsonl");
  writeFileSync(samples, `${sampleToJson(m.sample)}\n${sampleToJson(chainSample)}\n`);
  const sandboxRoot = path.join(root, "sandboxes");
  mkdirSync(sandboxRoot);
  return {
    root,
    sandboxRoot,
    repos,
    samples,
    mergeFx: m.fx,
    merge: m.merge,
    mergeSample: m.sample,
    chainFx: c.fx,
    chainSample,
    commits: c.commits,
    cleanup: () => {
      m.fx.remove();
      c.fx.remove();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The environment a spawned server gets: this process's, with the test's sandbox root. */
export function serverEnv(sandboxRoot: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, GITGOOD_SANDBOX: "", GITGOOD_SANDBOX_ROOT: sandboxRoot, ...extra };
}

/** Sandboxes that exist under a sandbox root. */
export function sandboxesIn(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((n) => path.join(root, n))
    .filter((d) => existsSync(path.join(d, "work")));
}

export interface StdioConnection {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}

/** Spawns `gitgood mcp ARGS` and connects a real SDK client to it over stdio. */
export async function connectStdio(args: string[], env: Record<string, string>): Promise<StdioConnection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", ...args], env, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (b: Buffer) => (err += b.toString("utf8")));
  const client = new Client({ name: "gitgood-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** Sends a signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `gitgood mcp --http 0 ARGS` and waits until it says where it listens. */
export function startHttpServer(args: string[], env: Record<string, string>): Promise<HttpServer> {
  const child = spawn(process.execPath, [BIN, "mcp", "--http", "0", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString("utf8");
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        resolve({
          url: m[1] as string,
          child,
          stderr: () => err,
          stop: async (signal = "SIGTERM") => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${err}`)));
  });
}

/**
 * Runs `gitgood mcp --http 0 ARGS` in this process and waits until it says where it listens; `stop`
 * aborts it (as SIGTERM stops its own process) and resolves with main's exit code. The sandbox root is
 * this process's while it serves.
 */
export async function serveHttpInProcess(args: string[], sandboxRoot: string): Promise<{ url: string; stderr: () => string; stop: () => Promise<number> }> {
  const controller = new AbortController();
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const stderr = captureSink(() => {
    const m = /listening on (http:\/\/\S+)/.exec(stderr.text());
    if (m) listening(m[1] as string);
  });
  const restoreEnv = setEnv({ GITGOOD_SANDBOX: "", GITGOOD_SANDBOX_ROOT: sandboxRoot });
  const done = main(["mcp", "--http", "0", ...args], { stdout: captureSink(), stderr, stdin: Readable.from([]), signal: controller.signal }).finally(restoreEnv);
  const exitedEarly = done.then((code) => Promise.reject(new Error(`server exited with ${code} before listening: ${stderr.text()}`)));
  return {
    url: await Promise.race([url, exitedEarly]),
    stderr: stderr.text,
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

/** Connects a real SDK client over Streamable HTTP. */
export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "gitgood-test-http", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

export interface Called {
  text: string;
  isError: boolean;
}

/** Calls a tool and joins its text content. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Called> {
  const r = await client.callTool({ name, arguments: args });
  const content = (r.content ?? []) as { type: string; text?: string }[];
  return { text: content.map((c) => c.text ?? "").join("\n"), isError: r.isError === true };
}

/** Calls a tool that must succeed. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.text;
}

/** The task's structured data, read through the resource. */
export async function taskData(client: Client): Promise<Record<string, unknown>> {
  const r = await client.readResource({ uri: "gitgood://task.json" });
  const first = r.contents[0] as { text?: string } | undefined;
  return JSON.parse(first?.text ?? "{}") as Record<string, unknown>;
}

const REASON = "test client: reproduce the recorded history";

/** Resolves every conflict of the only live sandbox to the merge commit's content. */
export async function solveMcr(client: Client, fx: McpFixtures): Promise<string> {
  const [sandbox] = sandboxesIn(fx.sandboxRoot);
  if (!sandbox) throw new Error("no live sandbox");
  const files = (await taskData(client)).files as string[];
  let last = "";
  for (const file of files) {
    const conflicted = readFileSync(path.join(sandbox, "work", file));
    for (const content of resolutionsFor(conflicted, blob(fx.mergeFx, fx.merge, file))) {
      last = await ok(client, "resolve_current_merge_conflict_with", { content, reason: REASON });
    }
  }
  return last;
}

/** Picks every commit in its place and runs the rebase: the original history. */
export async function solveIr(client: Client): Promise<string> {
  const commits = (await taskData(client)).commits as unknown[];
  await ok(client, "update_rebase_todo_list", {
    rebase_todo_list_items: commits.map((_, i) => ({ commit_index: i, command: "pick" })),
    reason: REASON,
  });
  return ok(client, "execute_rebase", { reason: REASON });
}

/** The chain's original messages, oldest first. */
export function chainMessages(fx: McpFixtures): string[] {
  return fx.commits.map((c) => fx.chainFx.git("log", "-1", "--format=%B", c).trimEnd());
}

/** Commits the spaced chain's hunks one per original commit, with the original messages. */
export async function solveIcc(client: Client, fx: McpFixtures): Promise<string> {
  const messages = chainMessages(fx);
  for (const message of messages.slice(0, -1)) {
    await ok(client, "commit_changes_in", { selected_hunks: ["HUNK-0"], commit_message: message, reason: REASON });
  }
  return ok(client, "commit_remaining_changes", { commit_message: messages.at(-1) as string, reason: REASON });
}

/** The records of a run directory, by key. */
export function recordsIn(runDir: string): Record<string, ResultRecord> {
  const file = path.join(runDir, "results.jsonl");
  if (!existsSync(file)) return {};
  const out: Record<string, ResultRecord> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as ResultRecord;
    out[r.key] = r;
  }
  return out;
}

/** A record's trajectory file. */
export function trajectoryOf(runDir: string, record: ResultRecord | undefined): Record<string, unknown> {
  if (!record?.trajectory) throw new Error("no trajectory");
  return JSON.parse(readFileSync(path.join(runDir, record.trajectory), "utf8")) as Record<string, unknown>;
}

/** Waits (without a deadline of its own: the test's time-out bounds it) until `check` holds. */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 50));
}
