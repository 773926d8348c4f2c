import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import type { EnvSpec, Environment } from "../../src/testenv/types.js";
import { projectSandbox, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

// Two pytest plugins, each a module and a dist-info registering it under `pytest11`: `ggenv` installed
// in the environment's own site-packages, `gghost` in a directory outside the virtual environment that
// a .pth file puts on its path, as the host's site-packages are. Each gives one fixture.
const MAKE_PLUGINS = `import pathlib, sys, sysconfig

def plugin(where, module, dist, entry, fixture):
    where.mkdir(parents=True, exist_ok=True)
    (where / (module + ".py")).write_text("import pytest\\n\\n@pytest.fixture\\ndef " + fixture + "():\\n    return " + repr(fixture) + "\\n")
    info = where / (module + "-1.0.dist-info")
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\\nName: " + dist + "\\nVersion: 1.0\\n")
    (info / "entry_points.txt").write_text("[pytest11]\\n" + entry + " = " + module + "\\n")

site = pathlib.Path(sysconfig.get_paths()["purelib"])
host = pathlib.Path(sys.prefix).parent / "hostsite"
plugin(site, "gg_env_plugin", "gg-env-plugin", "ggenv", "env_fixture")
plugin(host, "gg_host_plugin", "gg-host-plugin", "gghost", "host_fixture")
# Relative to the site directory, so the path survives the build's move into the cache.
(site / "gg_host.pth").write_text("../../../../hostsite\\n")
`;

const FILES = {
  "pyproject.toml": '[project]\nname = "plugged"\nversion = "0.1.0"\n',
  "tools/make_plugins.py": MAKE_PLUGINS,
  "tests/test_secrets.py": "import os\n\n\ndef test_no_host_secret():\n    print(sorted(os.environ))\n    assert 'GITGOOD_CANARY_TOKEN' not in os.environ\n",
  "tests/test_plugins.py": [
    "def test_env_plugin(env_fixture):",
    '    assert env_fixture == "env_fixture"',
    "",
    "",
    "def test_host_plugin(host_fixture):",
    '    assert host_fixture == "host_fixture"',
    "",
  ].join("\n"),
};
const target = { repo: "acme/plugged", version: "1.0" };

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let project: Awaited<ReturnType<typeof projectSandbox>>;
let base: EnvSpec;

async function environment(setup: string[]): Promise<Environment> {
  return prepareEnvironment({ sandbox: project.sandbox, target, spec: { ...base, setup }, cacheDir: cache.dir, timeoutSeconds: 300 });
}

/** The outcomes of the plugin tests in `env`, with `vars` added to the spec's variables (they are read when the tests run). */
async function outcomes(env: Environment, vars: Record<string, string> = {}): Promise<Record<string, string>> {
  const run = await runTests(project.sandbox, { ...env, spec: { ...env.spec, env: { ...env.spec.env, ...vars } } }, ["tests/test_plugins.py"], { timeoutSeconds: 120 });
  return Object.fromEntries(run.outcomes);
}

const ENV_ONLY = { "tests/test_plugins.py::test_env_plugin": "passed", "tests/test_plugins.py::test_host_plugin": "error" };
const BOTH = { "tests/test_plugins.py::test_env_plugin": "passed", "tests/test_plugins.py::test_host_plugin": "passed" };

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  project = await projectSandbox(FILES);
  base = resolveEnvSpec(target, project.sandbox.workDir);
}, 60_000);

afterAll(() => {
  project?.cleanup();
  root.cleanup();
  cache.cleanup();
});

describe("a test run of an evaluation", () => {
  it("runs the code under test without the host's variables: a key in gitgood's environment never reaches it or its log", async () => {
    const env = await environment(["python tools/make_plugins.py"]);
    process.env.GITGOOD_CANARY_TOKEN = "canary-7f3a9c";
    try {
      const run = await runTests(project.sandbox, env, ["tests/test_secrets.py"], { timeoutSeconds: 120 });
      expect(Object.fromEntries(run.outcomes)).toEqual({ "tests/test_secrets.py::test_no_host_secret": "passed" });
      expect(run.log).not.toContain("canary-7f3a9c");
    } finally {
      delete process.env.GITGOOD_CANARY_TOKEN;
    }
  }, 120_000);
});

describe("the pytest plugins an evaluation loads", () => {
  it("are the environment's own, not a plugin the host has installed that nothing asked for, unless the spec sets PYTEST_DISABLE_PLUGIN_AUTOLOAD itself", async () => {
    const env = await environment(["python tools/make_plugins.py"]);
    expect(env.pytestPlugins).toEqual(["ggenv"]);
    expect(JSON.parse(readFileSync(path.join(env.dir, "environment.json"), "utf8")).pytest_plugins).toEqual(["ggenv"]);
    expect(await outcomes(env)).toEqual(ENV_ONLY);
    // Empty: pytest autoloads every plugin it can see again, the host's among them.
    expect(await outcomes(env, { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "" })).toEqual(BOTH);
  }, 120_000);

  it("include a host plugin the set-up names in a pip install, under its entry-point name, so -p no:NAME still blocks it", async () => {
    const env = await environment(["python tools/make_plugins.py", "pip install --no-index gg-host-plugin"]);
    expect(env.pytestPlugins).toEqual(["ggenv", "gghost"]);
    expect(await outcomes(env)).toEqual(BOTH);
    expect(await outcomes(env, { PYTEST_ADDOPTS: "-p no:gghost" })).toEqual(ENV_ONLY);
  }, 120_000);
});
