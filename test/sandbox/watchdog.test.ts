import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { killAllWith, leftWith, processesWith, sleepMarker, waitFor } from "../helpers/processes.js";

// The child imports the built module (npm test builds first), as `gitgood run` would run it.
const EXEC = pathToFileURL(path.join(path.dirname(BIN), "..", "dist", "sandbox", "exec.js")).href;
const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-watchdog-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether the process `pid` is `sleep ARG`. */
function sleeping(pid: number, arg: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${arg}\0`;
  } catch {
    return false;
  }
}

describe("the watchdog of the programs gitgood starts", () => {
  it("kills, after gitgood is SIGKILLed, also a program that left the group it was told of", async () => {
    const marker = sleepMarker();
    // The program puts one sleep in a session (and group) of its own, which killing its group cannot reach.
    const program = `setsid sleep ${marker}1 & sleep ${marker}2; wait`;
    const script = `const { execIn } = await import(${JSON.stringify(EXEC)}); await execIn(${JSON.stringify(dir)}, ["sh", "-c", ${JSON.stringify(program)}]);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
    const closed = new Promise<unknown>((resolve) => child.on("close", resolve));
    try {
      const running = (arg: string): boolean => processesWith(arg).some((p) => sleeping(p, arg));
      await waitFor(() => running(`${marker}1`) && running(`${marker}2`), "both sleeps run");
      child.kill("SIGKILL");
      await closed;
      expect(await leftWith(marker)).toEqual([]);
    } finally {
      killAllWith(marker);
      child.kill("SIGKILL");
    }
  });
});
