import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The built module is imported by the child processes: npm run build first.

const NAMESPACE = path.resolve("dist", "sandbox", "isolation", "namespace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-probe-test-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The verdict a fresh process reaches: through the probe started ahead (`probeBwrap`) or the one made on demand. */
function verdict(ahead: boolean, PATH: string): string {
  const code = `const m = await import(${JSON.stringify(NAMESPACE)});${ahead ? " await m.probeBwrap();" : ""} process.stdout.write(JSON.stringify(m.bwrapUnavailable()));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", env: { ...process.env, PATH } });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** A folder whose `bwrap` is a script that fails as bubblewrap does where it may not make namespaces. */
function failingBwrap(): string {
  const dir = path.join(scratch, "failing");
  mkdirSync(dir, { recursive: true });
  const bin = path.join(dir, "bwrap");
  writeFileSync(bin, "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n");
  chmodSync(bin, 0o755);
  return dir;
}

describe("bubblewrap's probe started ahead", () => {
  it("reaches the verdict the probe made on demand reaches: here, with a bwrap that fails, and with none", () => {
    const here = process.env.PATH ?? "";
    expect(verdict(true, here)).toBe(verdict(false, here));
    const failing = `${failingBwrap()}${path.delimiter}${here}`;
    expect(verdict(true, failing)).toBe(JSON.stringify("bwrap fails here: bwrap: No permissions to creating new namespace"));
    expect(verdict(false, failing)).toBe(verdict(true, failing));
    const none = path.join(scratch, "empty");
    mkdirSync(none, { recursive: true });
    expect(verdict(true, none)).toBe(JSON.stringify("bwrap cannot be started (ENOENT)"));
    expect(verdict(false, none)).toBe(verdict(true, none));
  }, 60_000);
});
