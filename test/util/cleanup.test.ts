import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeAtExit, removingInBackground } from "../../src/util/cleanup.js";

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-cleanup-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A directory with `n` files in nested folders, as a sandbox's work tree is. */
function tree(name: string, n: number): string {
  const dir = path.join(root, name);
  for (let i = 0; i < n; i++) {
    const sub = path.join(dir, `d${i % 7}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, `f${i}`), "x");
  }
  return dir;
}

describe("removeAtExit", () => {
  it("removes at once outside a background scope", () => {
    const dir = tree("plain", 20);
    removeAtExit(dir)();
    expect(readdirSync(root).filter((n) => n.startsWith("plain"))).toEqual([]);
  });

  it("in a background scope: the path is gone when the remover returns, its contents are deleted off the event loop, and the scope waits for them", async () => {
    const dir = tree("sandbox", 200);
    let leftAfterRemove: string[] = [];
    await removingInBackground(async () => {
      removeAtExit(dir)();
      expect(existsSync(dir)).toBe(false);
      // Still there: the deletion runs on libuv's thread pool, not in this call.
      leftAfterRemove = readdirSync(root).filter((n) => n.startsWith("sandbox.removing-"));
    });
    expect(leftAfterRemove).toHaveLength(1);
    expect(readdirSync(root).filter((n) => n.startsWith("sandbox"))).toEqual([]);
  });
});
