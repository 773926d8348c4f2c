import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pythonFunctions, replaceFunctionBody } from "../../src/python/edit.js";
import { stubPythonSource } from "../../src/python/stubs.js";
import { KIT, KIT_REFERENCE } from "../helpers/commit0-kit.js";
import { writeFiles } from "../helpers/envs.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** pytest's summary line for the kit library with `files` over it. */
function pytestSummary(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-kit-"));
  dirs.push(dir);
  writeFiles(dir, { ...KIT, ...files });
  try {
    return execFileSync("python3", ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors", "tests"], { cwd: dir, encoding: "utf8" });
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

describe("replace_function_body on closures and decorator factories", () => {
  it("takes reference bodies that start with a nested def or a decorator, and rebuilds each module byte for byte", async () => {
    const rebuilt: Record<string, string> = {};
    for (const [file, bodies] of Object.entries(KIT_REFERENCE)) {
      let text = (await stubPythonSource(KIT[file] as string)).text;
      expect((await pythonFunctions(text)).filter((f) => f.stub).map((f) => f.name)).toEqual(Object.keys(bodies));
      for (const [fn, body] of Object.entries(bodies)) text = (await replaceFunctionBody(text, fn, body, { file })).text;
      expect(text).toBe(KIT[file]);
      rebuilt[file] = text;
    }
    expect(pytestSummary(rebuilt)).toMatch(/16 passed, 1 error/);
  }, 60_000);

  it("still takes a copy of the function's own signature in front, and refuses its own name changed or decorated", async () => {
    const stub = (await stubPythonSource(KIT["kit/memo.py"] as string)).text;
    const copy = `def memoize(maxsize=None):\n${(KIT_REFERENCE["kit/memo.py"]?.memoize as string).replace(/^(?=.)/gm, "    ")}`;
    expect((await replaceFunctionBody(stub, "memoize", copy)).text).toBe((await replaceFunctionBody(stub, "memoize", KIT_REFERENCE["kit/memo.py"]?.memoize as string)).text);
    await expect(replaceFunctionBody(stub, "memoize", "def memoize(size=None):\n    return None")).rejects.toMatchObject({ code: "EDIT_REFUSED" });
    await expect(replaceFunctionBody(stub, "memoize", "@functools.cache\ndef memoize(maxsize=None):\n    return None")).rejects.toMatchObject({ code: "EDIT_REFUSED" });
  });
});
