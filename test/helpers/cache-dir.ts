import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

// Every test file gets a response cache of its own (in-process calls and the processes they start):
// no test reads or fills the user's ~/.cache/gitgood, and no test sees another's answers.
const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-cache-"));
process.env.GITGOOD_CACHE_DIR = dir;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// No test reaches the network: the default model endpoint is a closed port on this machine (a test that
// needs an endpoint starts a fake one and names it), and no key of the developer's is ever sent.
process.env.OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
process.env.OPENAI_API_KEY = "no-key-in-tests";
process.env.ANTHROPIC_BASE_URL = "http://127.0.0.1:9";
process.env.ANTHROPIC_API_KEY = "no-key-in-tests";

// The pytest suites the tests run (SWE and commit0 evaluations, environments) are a few tiny fixture projects that
// need no plugin, but the environments see the host's site-packages, and a host with hypothesis and
// pytest-benchmark installed loads them into every run: three times the CPU of the run itself. The product
// leaves them on (a real project may need its plugins); the tests do not load them.
process.env.PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1";
