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

// The tests that run pytest directly (JUnit and log parsing, the system check) need no plugin of the host's; the
// host's hypothesis and pytest-benchmark would triple their CPU. Evaluations never see this variable (isolated
// programs get a scrubbed environment) and load only their environment's plugins (src/testenv/pytest-plugins.ts).
process.env.PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1";
