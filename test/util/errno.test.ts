import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { errnoCode, fsReason } from "../../src/util/errno.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-errno-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error a real file-system call throws. */
function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (err) {
    return err;
  }
  throw new Error("the call did not fail");
}

describe("fsReason", () => {
  it("puts the common errors of real calls in words", () => {
    expect(fsReason(thrownBy(() => readFileSync(path.join(dir, "absent"))))).toBe("no such file or directory");
    expect(fsReason(thrownBy(() => readFileSync(dir)))).toBe("it is a directory");
    const file = path.join(dir, "plain");
    writeFileSync(file, "x");
    expect(fsReason(thrownBy(() => readFileSync(path.join(file, "below"))))).toBe("a part of the path is not a directory");
  });

  it("falls back to the code, then to the message", () => {
    const odd = Object.assign(new Error("odd"), { code: "EXDEV" });
    expect(errnoCode(odd)).toBe("EXDEV");
    expect(fsReason(odd)).toBe("EXDEV");
    expect(fsReason(new Error("plain failure"))).toBe("plain failure");
    expect(fsReason("a string")).toBe("a string");
  });
});
