import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The image is checked from its Dockerfile, without a Docker daemon (the script needs `npm run build`).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCRIPT = path.join(ROOT, "agentbeats", "check-image.mjs");
const DOCKERFILE = path.join(ROOT, "agentbeats", "Dockerfile");
const scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-image-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const check = (file: string) => spawnSync(process.execPath, [SCRIPT, file], { encoding: "utf8" });

describe("agentbeats/check-image.mjs", () => {
  it("passes the shipped Dockerfile", () => {
    const r = check(DOCKERFILE);
    expect(r.status, r.stderr).toBe(0);
  });

  it("names what a broken Dockerfile lacks: curl, patch, /data, a flag gitgood does not take", () => {
    const broken = readFileSync(DOCKERFILE, "utf8")
      .replace(" curl patch ", " ")
      .replace(', "--data", "/data"]', "]")
      .replace('CMD ["--host", "0.0.0.0"', 'CMD ["--no-such-flag", "--host", "0.0.0.0"');
    const file = path.join(scratch, "Dockerfile");
    writeFileSync(file, broken);
    const r = check(file);
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split("\n").map((l) => l.replace(`check-image: ${file}: `, ""));
    expect(lines).toEqual([
      "the image does not install patch (the fourth SWE apply strategy)",
      "the image does not install curl (the health check)",
      "the entrypoint does not pass --data /data",
      "gitgood a2a serve takes no --no-such-flag",
    ]);
  });
});
