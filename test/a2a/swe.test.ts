import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ParticipantExecutor } from "../../src/a2a/participant.js";
import { agentCard, serveA2a } from "../../src/a2a/server.js";
import { askAgent, connectAgent } from "../../src/agents/a2a-client.js";
import { ScriptedModelClient, type ScriptStep } from "../../src/model/scripted.js";
import { RunStore } from "../../src/runs/store.js";
import type { ModelRequest } from "../../src/model/types.js";
import { agentBeatsRequest, finalState, resultOf, serveInProcess, startPurple, statusTexts, type Purple, type PurpleScript } from "../helpers/a2a.js";
import { useCacheDir } from "../helpers/envs.js";
import { recordsIn, sandboxVars } from "../helpers/mcp.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { CALC_BASE, pythonTask, type PythonTask } from "../helpers/swe.js";

// SWE-style tasks over A2A: the green (in this process) gives the participant REPO_DIR, the issue and the
// hints; the participant's patch is evaluated with the project's real pytest suite.
let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let task: PythonTask;
let dir: string;
let samples: string;
let green: Awaited<ReturnType<typeof serveInProcess>>;
const purples: Purple[] = [];
const LONG_ISSUE = `calc.sub(3, 1) returns 4; it should subtract.\n${"Steps to reproduce, at length. ".repeat(5000)}`;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  task = pythonTask();
  dir = task.fixture.scratch("a2a-swe");
  // As SWE-bench publishes instances: a JSON list.
  samples = path.join(dir, "instances.json");
  writeFileSync(samples, JSON.stringify([task.sample({ problem_statement: LONG_ISSUE }).scenario]));
  green = await serveInProcess(["serve", "--out", path.join(dir, "runs"), "--shared-dir", path.join(dir, "shared"), "--data", dir, "--data", task.fixture.dir, "--poll", "0.1"], {
    ...sandboxVars(root.root),
    GITGOOD_CACHE_DIR: cache.dir,
  });
}, 60_000);

afterAll(async () => {
  await green?.stop();
  await Promise.all(purples.map((p) => p.close()));
  task?.fixture.remove();
  root.cleanup();
  cache.cleanup();
});

function request(url: string, config: Record<string, unknown> = {}): string {
  return JSON.stringify({ participants: { agent: url }, config: { dataset: samples, repo: task.fixture.dir, scenarios: ["swe"], ...config } });
}

describe("gitgood a2a serve on SWE-style tasks", () => {
  it("a participant that answers with the gold patch resolves: resolved_pct 1.0 (a message and an answer above 100 KB)", async () => {
    let seen: { repoDir: string; hadFile: boolean } | null = null;
    const gold: PurpleScript = async ({ text, events }) => {
      const repoDir = /^REPO_DIR:(.+)$/m.exec(text)?.[1] ?? "";
      seen = { repoDir, hadFile: existsSync(path.join(repoDir, "calc", "__init__.py")) };
      // Whatever it does in REPO_DIR beyond its answer does not count.
      writeFileSync(path.join(repoDir, "calc", "__init__.py"), "broken\n");
      events.artifact("answer", [{ content: { $case: "text", value: `<patch>\n${task.gold}</patch>\n${"Explained at length. ".repeat(8000)}` }, mediaType: "text/plain", filename: "", metadata: undefined }]);
      events.end(TaskState.TASK_STATE_COMPLETED, "done");
    };
    const p = await startPurple(gold);
    purples.push(p);
    const events = await agentBeatsRequest(green, request(p.url));
    expect(finalState(events)).toBe("completed");
    const received = p.received[0] ?? "";
    expect(received.length).toBeGreaterThan(100_000);
    expect(received).toMatch(/^REPO_DIR:\S+\n\nProblem Statement:\ncalc\.sub\(3, 1\) returns 4; it should subtract\./);
    expect(received).toMatch(/\n\nHints:\nLook at calc\/__init__\.py\.$/);
    expect(seen).toMatchObject({ hadFile: true });
    expect(existsSync((seen as unknown as { repoDir: string }).repoDir)).toBe(false);
    expect(statusTexts(events)).toContain("[1/1] acme__calc-1 SWE: resolved");
    const result = resultOf(events);
    expect(result?.data).toMatchObject({ total_instances: 1, resolved_pct: 1, no_op_pct: 0, fail_to_pass_passed_pct: 1, pass_to_pass_passed_pct: 1 });
    const [rec] = Object.values(recordsIn(result?.data.run_dir as string));
    expect(rec?.scores.swe).toMatchObject({ status: "resolved", patch_source: "tags" });
  }, 240_000);

  it("a participant that answers nothing is no_op", async () => {
    const p = await startPurple(async ({ events }) => events.end(TaskState.TASK_STATE_COMPLETED, ""));
    purples.push(p);
    const result = resultOf(await agentBeatsRequest(green, request(p.url)));
    expect(result?.data).toMatchObject({ total_instances: 1, resolved_pct: 0, no_op_pct: 1 });
    const file = path.join(result?.data.run_dir as string, "results.jsonl");
    expect(readFileSync(file, "utf8")).toContain('"status":"no_op"');
  }, 240_000);

  it("records the hints it gave in run.json's spec (and identity), as run --hints does; a request's hints: false gives none", async () => {
    const p = await startPurple(async ({ events }) => events.end(TaskState.TASK_STATE_COMPLETED, ""));
    purples.push(p);
    const hinted = RunStore.readConfig(resultOf(await agentBeatsRequest(green, request(p.url)))?.data.run_dir as string);
    expect(p.received[0]).toMatch(/\n\nHints:\nLook at calc\/__init__\.py\.$/);
    expect(hinted.spec).toMatchObject({ swe: { hints: true, env_spec: null, test_timeout_s: 900 } });
    expect(hinted.identity.spec).toMatchObject({ swe: { hints: true } });
    const plain = RunStore.readConfig(resultOf(await agentBeatsRequest(green, request(p.url, { hints: false })))?.data.run_dir as string);
    expect(p.received[1]).not.toMatch(/Hints:/);
    expect(plain.spec).toMatchObject({ swe: { hints: false } });
    expect(plain.identity.spec ?? {}).not.toHaveProperty("swe");
  }, 240_000);

  it("a participant whose task fails counts as error", async () => {
    const p = await startPurple(async ({ events }) => events.end(TaskState.TASK_STATE_REJECTED, "not my kind of task"));
    purples.push(p);
    const result = resultOf(await agentBeatsRequest(green, request(p.url)));
    expect(result?.data).toMatchObject({ total_instances: 1, error_pct: 1, resolved_pct: 0 });
    const [rec] = Object.values(recordsIn(result?.data.run_dir as string));
    expect(rec?.error?.message).toBe("the participant's task ended in state rejected: not my kind of task");
  }, 240_000);
});

/** gitgood's participant (`gitgood a2a agent`) on 127.0.0.1, its model scripted. */
async function participant(script: readonly ScriptStep[]): Promise<{ url: string; model: ScriptedModelClient }> {
  const model = new ScriptedModelClient(script);
  const card = agentCard({ name: "participant", description: "test", url: "http://127.0.0.1:1", skills: [] });
  const handle = await serveA2a({ host: "127.0.0.1", port: 0, access: { allowedOrigins: [], loopback: true }, card, executor: new ParticipantExecutor({ model, log: () => undefined }) });
  card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${handle.url}/` }));
  purples.push({ url: handle.url, received: [], close: () => handle.close() });
  return { url: handle.url, model };
}

/** What the tools answered the calls of the model's last reply. */
function toolOutputs(request: ModelRequest): string[] {
  const messages = request.messages;
  let at = messages.length;
  while (at > 0 && messages[at - 1]?.role === "tool") at--;
  return messages.slice(at).map((m) => m.content ?? "");
}

const call = (name: string, args: Record<string, unknown>) => ({ tool_calls: [{ name, arguments: { ...args, reason: "scripted" } }] });

async function ask(url: string, text: string): Promise<string> {
  return (await askAgent(await connectAgent(url), [{ text }], { signal: new AbortController().signal, pollSeconds: 0.05 })).text;
}

describe("gitgood a2a agent on SWE tasks (the participant in REPO_DIR, with the SWE tools)", () => {
  it("a model that edits the fixture to the gold fix through the tools resolves: resolved_pct 1.0", async () => {
    const outputs: string[][] = [];
    const seen = (step: ScriptStep) => (request: ModelRequest) => {
      outputs.push(toolOutputs(request));
      return step;
    };
    const fixed = "def sub(a, b):\n    return a - b";
    const { url, model } = await participant([
      call("view_file", { path: "calc/__init__.py" }),
      seen(call("replace_text", { path: "calc/__init__.py", old_text: "def sub(a, b):\n    return a + b", new_text: fixed })),
      seen(call("run_command", { command: "python3 -c 'import calc; print(calc.sub(3, 1))'" })),
      seen(call("finish", {})),
      seen("Fixed calc.sub."),
    ]);
    const result = resultOf(await agentBeatsRequest(green, request(url)));
    expect(result?.data).toMatchObject({ total_instances: 1, resolved_pct: 1, no_op_pct: 0, fail_to_pass_passed_pct: 1, pass_to_pass_passed_pct: 1 });
    // The model read the issue and the hints, and worked with the SWE scenario's tools.
    const first = model.requests[0] as ModelRequest;
    expect(first.messages[1]?.content).toMatch(/Issue:\ncalc\.sub\(3, 1\) returns 4; it should subtract\./);
    expect(first.messages[1]?.content).toMatch(/Hints \(from the issue's discussion\):\nLook at calc\/__init__\.py\.$/);
    expect((first.tools ?? []).map((t) => t.function.name)).toEqual(["list_files", "view_file", "search_text", "replace_text", "create_file", "run_command", "finish"]);
    expect(outputs[0]?.[0]).toContain("5  def sub(a, b):");
    expect(outputs[1]).toEqual(["Replaced 1 occurrence in calc/__init__.py."]);
    expect(outputs[2]?.[0]).toMatch(/^The command exited with code 0\.\n--- stdout ---\n2\n/);
    const [rec] = Object.values(recordsIn(result?.data.run_dir as string));
    expect(rec?.scores.swe).toMatchObject({ status: "resolved", patch_source: "tags" });
    // The answer is REPO_DIR's diff, wrapped in <patch> tags: the fix, without the byte-code cache the model's
    // `python3 -c 'import calc'` wrote (the participant leaves caches out). The evaluated patch is the gold fix
    // itself (with full blob ids), and nothing of the answer was the evaluation's to drop.
    const swe = rec?.scores.swe as { patch?: string; tampered?: string[] } | undefined;
    const noIndex = (patch: unknown) => String(patch).replace(/^index \S+/m, "index");
    expect(noIndex(swe?.patch)).toBe(noIndex(task.gold));
    expect(swe?.tampered ?? []).toEqual([]);
  }, 240_000);

  it("a model that changes nothing is no_op", async () => {
    const { url } = await participant([call("finish", {}), "Nothing to change."]);
    const result = resultOf(await agentBeatsRequest(green, request(url)));
    expect(result?.data).toMatchObject({ total_instances: 1, resolved_pct: 0, no_op_pct: 1, error_pct: 0 });
  }, 240_000);

  it("never follows a symbolic link in REPO_DIR out of it, and answers the diff of a plain copy (no .git)", async () => {
    const outside = task.fixture.scratch("outside");
    writeFileSync(path.join(outside, "canary.txt"), "canary\n");
    const repoDir = task.fixture.scratch("plain-repo");
    mkdirSync(path.join(repoDir, "calc"));
    writeFileSync(path.join(repoDir, "calc", "__init__.py"), CALC_BASE);
    symlinkSync(path.join(outside, "canary.txt"), path.join(repoDir, "notes.txt"));
    symlinkSync(outside, path.join(repoDir, "docs"));
    const outputs: string[][] = [];
    const seen = (step: ScriptStep) => (request: ModelRequest) => {
      outputs.push(toolOutputs(request));
      return step;
    };
    const { url } = await participant([
      call("view_file", { path: "notes.txt" }),
      seen(call("replace_text", { path: "notes.txt", old_text: "canary", new_text: "owned" })),
      seen(call("create_file", { path: "docs/new.txt", content: "owned\n" })),
      seen(call("search_text", { text: "canary", path: "docs" })),
      seen(call("replace_text", { path: "calc/__init__.py", old_text: "    return a + b\n\n\ndef mul", new_text: "    return a - b\n\n\ndef mul" })),
      seen(call("finish", {})),
      seen("Done."),
    ]);
    const answer = await ask(url, `REPO_DIR:${repoDir}\n\nProblem Statement:\nsub adds.`);
    expect(outputs.slice(0, 4).map((o) => o[0])).toEqual([
      "error: notes.txt is a symbolic link; the tools never read through links",
      "error: notes.txt is a symbolic link; the tools never write through links",
      "error: path 'docs/new.txt' is not allowed: 'docs' is a symbolic link, and the tools never go through links",
      "error: docs is a symbolic link; the tools never go through links",
    ]);
    expect(readFileSync(path.join(outside, "canary.txt"), "utf8")).toBe("canary\n");
    expect(readdirSync(outside)).toEqual(["canary.txt"]);
    expect(answer).toMatch(/^<patch>\ndiff --git a\/calc\/__init__\.py b\/calc\/__init__\.py\n[\s\S]*- {4}return a \+ b\n\+ {4}return a - b\n[\s\S]*<\/patch>$/);
    expect(answer).not.toContain("notes.txt");
  }, 60_000);

  it("fails a malformed SWE task with one clear line, and keeps serving", async () => {
    const { url, model } = await participant([]);
    const missing = path.join(task.fixture.scratch("gone"), "nothing-here");
    const cases: [string, RegExp][] = [
      ["REPO_DIR:/tmp\nProblem Statement:\nx", /^the participant's task ended in state failed: malformed SWE task: a SWE task is REPO_DIR:<absolute path>, a blank line, Problem Statement:/],
      ["REPO_DIR:relative/dir\n\nProblem Statement:\nx", /^the participant's task ended in state failed: malformed SWE task: REPO_DIR must be an absolute path, not 'relative\/dir'$/],
      [`REPO_DIR:${dir}\n\nProblem Statement:\n  \n`, /^the participant's task ended in state failed: malformed SWE task: the problem statement is empty$/],
      [`REPO_DIR:${missing}\n\nProblem Statement:\nx`, /^the participant's task ended in state failed: REPO_DIR \S+nothing-here does not exist on this machine/],
    ];
    for (const [text, expected] of cases) await expect(ask(url, text)).rejects.toThrow(expected);
    expect(model.requests).toHaveLength(0);
  }, 60_000);
});
