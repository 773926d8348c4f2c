import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { containerRuntimeProblem } from "../../src/export/harbor-container.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";
import { pythonTask } from "../helpers/swe.js";

/*
 * The check with a container runtime (`--runtime podman`): environment/Dockerfile built for real from a
 * Debian image the machine has (GITGOOD_TEST_BASE_IMAGE, one built offline: `debootstrap` into a directory,
 * then `tar -C DIR -c . | podman import - NAME`), the oracle and the untouched start run in containers.
 * Without that image or a working podman the test is skipped: nothing here may reach a registry.
 */

/** A test.sh that writes 0 whatever the repository holds, put in place of the real one when set. */
const broken: { zero: boolean } = { zero: false };

vi.mock("../../src/export/harbor-tasks.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/export/harbor-tasks.js")>();
  const zero = '#!/bin/bash\nmkdir -p /logs/verifier\necho 0 > /logs/verifier/reward.txt\necho \'{"reward": 0, "solved": 0}\' > /logs/verifier/reward.json\n';
  return {
    ...real,
    async harborParts(input: Parameters<typeof real.harborParts>[0]) {
      const parts = await real.harborParts(input);
      return broken.zero ? { ...parts, tests: { ...parts.tests, "test.sh": { data: zero, mode: 0o755 } } } : parts;
    },
  };
});

const BASE = process.env.GITGOOD_TEST_BASE_IMAGE ?? "";
const ready = BASE !== "" && (await containerRuntimeProblem("podman")) === null;

let fx: Fixture;
let scratch: string;
let merge: Sample;
let samples: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-podman-"));
  const built = await buildRunFixture();
  fx = built.fx;
  merge = built.samples.find((s) => s.sample_type === "merge" && s.difficulty === "medium")!;
  samples = path.join(scratch, "samples.jsonl");
  writeFileSync(samples, `${JSON.stringify(merge)}\n`);
}, 120_000);

afterAll(() => {
  fx?.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!ready)("export harbor --runtime podman", () => {
  it("builds the Dockerfile and checks the task in containers: the oracle scores 1, the untouched start 0", async () => {
    const out = path.join(scratch, "tasks");
    const r = await gitgood(["export", "harbor", samples, out, "--repo", fx.dir, "--runtime", "podman", "--base-image", BASE]);
    expect(r.stderr).toContain("(checked: the oracle scores 1, the untouched start 0)");
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(out, `${merge.id}-mcr`, "task.toml"), "utf8")).toContain(`gitgood_check = "passed in podman (environment/Dockerfile built from ${BASE})"`);
  }, 900_000);

  it("a SWE task: the Dockerfile builds the project's Python environment, and the gold patch scores 1 in it", async () => {
    const swe = pythonTask();
    try {
      const instances = path.join(scratch, "instances.json");
      writeFileSync(instances, JSON.stringify([swe.sample().scenario]));
      const r = await gitgood(["export", "harbor", instances, path.join(scratch, "swe"), "--repo", swe.fixture.dir, "--runtime", "podman", "--base-image", BASE]);
      expect(r.stderr).toContain("acme__calc-1-swe (checked: the oracle scores 1, the untouched start 0)");
      expect(r.code).toBe(0);
    } finally {
      swe.fixture.remove();
    }
  }, 1_200_000);

  it("leaves out a task whose test.sh always writes 0, found in the container", async () => {
    broken.zero = true;
    try {
      const r = await gitgood(["export", "harbor", samples, path.join(scratch, "zero"), "--repo", fx.dir, "--runtime", "podman", "--base-image", BASE]);
      expect(r.stderr).toContain(`${merge.id} MCR: fails the check: the oracle (solution/solve.sh) scores 0 (solved 0), not 1`);
      expect(r.code).not.toBe(0);
    } finally {
      broken.zero = false;
    }
  }, 900_000);
});

describe("export harbor --runtime: a runtime that cannot run is refused in one line", () => {
  it("names the runtime and why", async () => {
    const r = await gitgood(["export", "harbor", samples, path.join(scratch, "none"), "--repo", fx.dir, "--runtime", "docker"], { env: { DOCKER_HOST: "unix:///nonexistent/docker.sock" } });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--runtime docker cannot run here: /);
  });
});
