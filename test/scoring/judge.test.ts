import { describe, expect, it } from "vitest";
import { ScriptedModelClient } from "../../src/testing.js";
import { judgeHistories } from "../../src/scoring/judge.js";

const author = { name: "Ada", email: "ada@example.com", date: "1704067260 +0000" };
const commit = (n: number, message: string, diff: string) => ({ oid: String(n).repeat(40), author, message, diff });
const original = [commit(1, "wip", "+a\n"), commit(2, "more", "+b\n")];
const agent = [commit(3, "Add a and b helpers", "+a\n+b\n")];
const say = (better: string) => JSON.stringify({ better, reason: "because" });

describe("pairwise judge", () => {
  it("solves only when the agent wins in both orders", async () => {
    // Agent is shown first, then second.
    const winWin = new ScriptedModelClient([say("1"), say("2")], "judge-a");
    const r = await judgeHistories([winWin], original, agent);
    expect(r.solved).toBe(true);
    expect(r.verdicts.map((v) => [v.agent_position, v.winner])).toEqual([
      [1, "agent"],
      [2, "agent"],
    ]);
    // The agent's history is the one shown first in the first request and second in the second.
    expect(winWin.requests[0]?.messages[1]?.content).toMatch(/⟦history 1 commit 1 of 1 begin · \w+⟧\ncommit 3{40}\n[^]*\n {4}Add a and b helpers\n/);
    expect(winWin.requests[1]?.messages[1]?.content).toMatch(/⟦history 2 commit 1 of 1 begin · \w+⟧\ncommit 3{40}\n[^]*\n {4}Add a and b helpers\n/);

    const winLose = await judgeHistories([new ScriptedModelClient([say("1"), say("1")])], original, agent);
    expect(winLose.solved).toBe(false);
    expect(winLose.verdicts.map((v) => v.winner)).toEqual(["agent", "original"]);

    const tie = await judgeHistories([new ScriptedModelClient([say("tie"), say("2")])], original, agent);
    expect(tie.solved).toBe(false);
    expect(tie.verdicts[0]?.winner).toBe("tie");
  });

  it("asks again once when the answer is malformed, then gives up on that verdict", async () => {
    const fixed = new ScriptedModelClient(["I think the first", say("1"), say("2")]);
    const r = await judgeHistories([fixed], original, agent);
    expect(r.solved).toBe(true);
    expect(fixed.requests).toHaveLength(3);
    expect(fixed.requests[1]?.messages.at(-1)?.content).toMatch(/not a valid answer/);

    const broken = new ScriptedModelClient(["nope", '{"better": "3"}', say("2")]);
    const b = await judgeHistories([broken], original, agent);
    expect(b.verdicts.map((v) => v.winner)).toEqual(["invalid", "agent"]);
    expect(b.solved).toBe(false);
  });

  it("lets the majority of several judges decide and keeps every verdict", async () => {
    const yes = () => new ScriptedModelClient([say("1"), say("2")]);
    const no = () => new ScriptedModelClient([say("2"), say("1")]);
    const r = await judgeHistories([yes(), no(), yes()], original, agent);
    expect(r.solved).toBe(true);
    expect(r.verdicts).toHaveLength(6);
    expect(r.judges.map((j) => j.wins_both)).toEqual([true, false, true]);
    expect((await judgeHistories([yes(), no()], original, agent)).solved).toBe(false);
    expect(r.usage.prompt_tokens).toBe(60);
  });
});
