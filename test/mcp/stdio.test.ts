import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { McrFinalState } from "../../src/scenarios/mcr/state.js";
import { MCR_TOOLS } from "../../src/scenarios/mcr/tools.js";
import type { HistoryChecks } from "../../src/scoring/history.js";
import { BIN } from "../helpers/cli.js";
import {
  call,
  chainMessages,
  connectInMemory,
  ok,
  RAW_OPENING,
  recordsIn,
  resultLines,
  sandboxesIn,
  serverEnv,
  serveStdioInProcess,
  sessionSource,
  singleSource,
  solveIcc,
  solveIr,
  solveMcr,
  trajectoryOf,
  until,
  useMcpFixtures,
  type RpcReply,
} from "../helpers/mcp.js";

// The smoke test spawns the built CLI (npm run build first), as an MCP client configured with `gitgood mcp`
// would; the others serve in this process, over the SDK's in-memory transport or through main(args, io).
const { fx, outDir } = useMcpFixtures("stdio");

function single(id: string, extra: string[] = []): { args: string[]; out: string } {
  const out = outDir();
  return { args: [fx.samples, "--id", id, "--repos", fx.repos, "--out", out, ...extra], out };
}

describe("gitgood mcp over stdio, its own process (smoke)", () => {
  it("answers on its standard output and exits by itself, with the scenario recorded, when its input ends", () => {
    const { args, out } = single(fx.mergeSample.id);
    const r = spawnSync(process.execPath, [BIN, "mcp", ...args], {
      input: RAW_OPENING.map((l) => `${JSON.stringify(l)}\n`).join(""),
      env: serverEnv(fx.sandboxRoot),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(`gitgood mcp: serving sample ${fx.mergeSample.id} (MCR); results in ${out} over stdio\n`);
    const replies = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as RpcReply);
    expect(replies.map((x) => x.id)).toEqual([1, 2]);
    expect(replies[1]?.result?.content?.[0]?.text).toContain(fx.mergeSample.id);
    expect(recordsIn(out)[`${fx.mergeSample.id}.MCR`]).toMatchObject({ status: "error", error: { code: "CLIENT_DISCONNECTED" }, tool_calls: 1 });
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });
});

describe("gitgood mcp, one scenario (in memory)", () => {
  it("serves MCR: registry tools with annotations, the task as tool and resource; solved, scored and recorded", async () => {
    const out = outDir();
    const { client } = await connectInMemory(await singleSource(fx, fx.mergeSample.id, out));
    try {
      expect(client.getInstructions()).toContain("get_task");
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const t of MCR_TOOLS.tools) {
        const offered = byName.get(t.name);
        // One definition: the MCP schema is the function-calling schema, the hints follow readOnly.
        expect(offered?.inputSchema).toEqual(MCR_TOOLS.functionTools().find((f) => f.function.name === t.name)?.function.parameters);
        expect(offered?.description).toBe(t.description);
        expect(offered?.annotations).toMatchObject({ readOnlyHint: t.readOnly, destructiveHint: !t.readOnly });
      }
      expect(byName.get("get_task")?.annotations).toMatchObject({ readOnlyHint: true });
      expect(byName.get("finish_scenario")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });

      const task = await ok(client, "get_task");
      expect(task).toContain(fx.mergeSample.id);
      const resource = await client.readResource({ uri: "gitgood://task" });
      expect((resource.contents[0] as { text: string }).text).toBe(task);

      const last = await solveMcr(client, fx);
      expect(last).toContain("The task is complete");
      const finish = await ok(client, "finish_scenario");
      expect(finish).toBe(`Your attempt at ${fx.mergeSample.id}.MCR is recorded; it is scored after the session.\nThe scenario is closed; you may disconnect.`);

      // The scenario is closed: its tools are gone and calling one says why.
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_task", "finish_scenario"]);
      const after = await call(client, "view_file_at", { relative_path_from_project_root: "app.py", reason: "look" });
      expect(after.isError).toBe(true);
      expect(after.text).toContain("is finished (recorded); you may disconnect");
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    } finally {
      await client.close();
    }
    const records = recordsIn(out);
    const key = `${fx.mergeSample.id}.MCR`;
    expect(Object.keys(records)).toEqual([key]);
    expect(records[key]).toMatchObject({ status: "success", solved: true, verdict: "solved", agent: "mcp", tool_calls: 5 });
    const t = trajectoryOf(out, records[key]);
    expect((t.final as McrFinalState).tree).toBe(fx.mergeFx.git("rev-parse", `${fx.merge}^{tree}`));
    expect(t.client).toMatchObject({ name: "gitgood-test", transport: "stdio" });
    const events = t.events as { type: string; tool?: string }[];
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual([
      "get_task",
      ...Array(4).fill("resolve_current_merge_conflict_with"),
    ]);
    expect(resultLines(out)).toHaveLength(1);
  });

  it("serves IR and reproduces the original history", async () => {
    const out = outDir();
    const { client } = await connectInMemory(await singleSource(fx, fx.chainSample.id, out, "ir"));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("execute_rebase");
      await solveIr(client);
      expect(await ok(client, "finish_scenario")).toContain("is recorded; it is scored after the session");
    } finally {
      await client.close();
    }
    const r = recordsIn(out)[`${fx.chainSample.id}.IR`];
    expect(r).toMatchObject({ status: "success", verdict: "unjudged" });
    expect(r?.scores.checks as HistoryChecks).toMatchObject({ finished: true, tree_matches_tip: true, commits: 4, original_commits: 4 });
    const final = trajectoryOf(out, r).final as { commits: { message: string }[]; tree: string };
    expect(final.commits.map((c) => c.message.trimEnd())).toEqual(chainMessages(fx));
    expect(final.tree).toBe(fx.chainFx.git("rev-parse", `${fx.commits.at(-1)}^{tree}`));
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });

  it("serves ICC and reproduces the original commits hunk by hunk", async () => {
    const out = outDir();
    const { client } = await connectInMemory(await singleSource(fx, fx.chainSample.id, out, "icc"));
    try {
      expect(await ok(client, "get_task")).toContain("HUNK-3");
      await solveIcc(client, fx);
      await ok(client, "finish_scenario");
    } finally {
      await client.close();
    }
    const r = recordsIn(out)[`${fx.chainSample.id}.ICC`];
    expect(r?.scores.checks as HistoryChecks).toMatchObject({ finished: true, tree_matches_tip: true, commits: 4, empty_commits: 0 });
    const final = trajectoryOf(out, r).final as { commits: { message: string }[] };
    expect(final.commits.map((c) => c.message.trimEnd())).toEqual(chainMessages(fx));
  });

  it("answers malformed calls and escape attempts with tool errors, and keeps serving", async () => {
    const { client } = await connectInMemory(await singleSource(fx, fx.mergeSample.id, outDir()));
    try {
      const unknown = await call(client, "rm_rf", { reason: "x" });
      expect(unknown).toMatchObject({ isError: true });
      expect(unknown.text).toMatch(/^error: there is no tool 'rm_rf'; the tools are: get_task, finish_scenario, view_current/);
      const noReason = await call(client, "view_current_merge_conflict_with", { context_window_size: 1 });
      expect(noReason).toEqual({ isError: true, text: "error: bad arguments for view_current_merge_conflict_with: reason: required parameter is missing" });
      const wrongType = await call(client, "view_merge_conflict_at", { conflict_index: "first", context_window_size: 1, reason: "x" });
      expect(wrongType.isError).toBe(true);
      expect(wrongType.text).toContain("conflict_index");
      const noArgs = await client.callTool({ name: "view_file_at" });
      expect(noArgs.isError).toBe(true);
      const session = await call(client, "start_scenario", { sample_id: fx.mergeSample.id });
      expect(session.text).toContain("there is no tool 'start_scenario'");

      for (const p of ["../owner.json", "/etc/passwd", "../../private/state.json"]) {
        const escape = await call(client, "view_file_at", { relative_path_from_project_root: p, reason: "try to escape" });
        expect(escape.isError, p).toBe(true);
        expect(escape.text.startsWith(`error: path '${p}' is not allowed`), escape.text).toBe(true);
      }
      // Still serving: a good call works.
      expect(await ok(client, "view_current_merge_conflict_with", { context_window_size: 0, reason: "look" })).toContain("conflict 0 of 4");
    } finally {
      await client.close();
    }
  });

  it("records a client that disconnects mid-scenario as an error and removes its sandbox", async () => {
    const out = outDir();
    const { client, closed } = await connectInMemory(await singleSource(fx, fx.mergeSample.id, out));
    await ok(client, "view_current_merge_conflict_with", { context_window_size: 1, reason: "look" });
    expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(1);
    await client.close();
    await closed;
    const key = `${fx.mergeSample.id}.MCR`;
    expect(recordsIn(out)[key]).toMatchObject({
      status: "error",
      verdict: "error",
      solved: false,
      error: { code: "CLIENT_DISCONNECTED" },
      tool_calls: 1,
    });
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });

  it("lists every scenario's tools from the start in session mode with --all-tools", async () => {
    const out = outDir();
    const { client } = await connectInMemory(await sessionSource(fx, out, true));
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      for (const name of ["resolve_current_merge_conflict_with", "execute_rebase", "commit_changes_in"]) expect(listed).toContain(name);
      expect(listed.filter((x) => x === "view_current_merge_conflict_with")).toHaveLength(1);
      expect((await call(client, "execute_rebase", { reason: "x" })).text).toContain("no scenario is open: call start_scenario first");
      await ok(client, "start_scenario", { sample_id: fx.mergeSample.id });
      const wrong = await call(client, "execute_rebase", { reason: "x" });
      expect(wrong).toMatchObject({ isError: true });
      expect(wrong.text).toMatch(/^error: the open scenario is MCR, which has no tool execute_rebase; its tools are: view_current_merge_conflict_with, /);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(listed);
      await solveMcr(client, fx);
      expect(await ok(client, "finish_scenario")).toContain("is recorded; it is scored after the session");
    } finally {
      await client.close();
    }
    expect(recordsIn(out)[`${fx.mergeSample.id}.MCR`]).toMatchObject({ solved: true });
  });

  it("scores a finished task when the client disconnects without calling finish_scenario", async () => {
    const out = outDir();
    const { client, closed } = await connectInMemory(await singleSource(fx, fx.chainSample.id, out, "ir"));
    await solveIr(client);
    await client.close();
    await closed;
    const key = `${fx.chainSample.id}.IR`;
    expect(recordsIn(out)[key]).toMatchObject({ status: "success", verdict: "unjudged" });
    expect(trajectoryOf(out, recordsIn(out)[key]).ended_by).toBe("disconnect");
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });
});

describe("gitgood mcp over stdio in-process, through main(args, io)", () => {
  it("answers on the caller's output and returns 0, with the scenario recorded, when its input ends", async () => {
    const { args, out } = single(fx.chainSample.id, ["--scenario", "icc"]);
    const server = serveStdioInProcess(args, fx.sandboxRoot);
    // The input ends while the commit (a git process) is still running: its answer must still be written.
    const commit = { selected_hunks: ["HUNK-0"], commit_message: "first", reason: "raw client" };
    server.send(...RAW_OPENING, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "commit_changes_in", arguments: commit } });
    expect(await server.end(), server.stderr()).toBe(0);
    const replies = server.replies();
    expect(replies.map((x) => x.id)).toEqual([1, 2, 3]);
    expect(replies[1]?.result?.content?.[0]?.text).toContain(fx.chainSample.id);
    expect(replies[2]?.result?.content?.[0]?.text).toMatch(/^Committed [0-9a-f]{40}\.\nHunks left to commit \(3\):/);
    expect(server.stderr()).toBe(`gitgood mcp: serving sample ${fx.chainSample.id} (ICC); results in ${out} over stdio\n`);
    expect(recordsIn(out)[`${fx.chainSample.id}.ICC`]).toMatchObject({ status: "error", error: { code: "CLIENT_DISCONNECTED" }, tool_calls: 2 });
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });

  it("records the open scenario as stopped and returns 0 when the caller aborts io.signal", async () => {
    const { args, out } = single(fx.mergeSample.id);
    const server = serveStdioInProcess(args, fx.sandboxRoot);
    server.send(...RAW_OPENING);
    await until(() => server.replies().length === 2);
    expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(1);
    expect(await server.stop(), server.stderr()).toBe(0);
    expect(recordsIn(out)[`${fx.mergeSample.id}.MCR`]).toMatchObject({
      status: "error",
      error: { code: "SERVER_STOPPED", message: "gitgood mcp was stopped before the client finished the scenario" },
      tool_calls: 1,
    });
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });
});
