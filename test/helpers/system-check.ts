// Runs once before the suite: the isolation, security and environment tests need programs from the system. A
// missing one stops the run at once with one line, never a quiet skip; GITGOOD_SKIP_SYSTEM_TESTS=1 lets those
// tests skip instead (vitest's summary then counts them as skipped).
import path from "node:path";

export default async function checkSystem(): Promise<void> {
  if (process.env.GITGOOD_SKIP_SYSTEM_TESTS === "1") return;
  // pytest without the host's plugins, as the tests run it (test/helpers/cache-dir.ts): with them, its start-up alone
  // can outlast the check's time limit on a loaded machine.
  process.env.PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1";
  const modulePath: string = path.resolve(import.meta.dirname, "../../scripts/system-deps.js");
  const { systemProblem } = (await import(modulePath)) as { systemProblem: () => string | null };
  const problem = systemProblem();
  if (problem === null) return;
  process.stderr.write(`gitgood tests: ${problem} (or set GITGOOD_SKIP_SYSTEM_TESTS=1 to skip the tests that need it)\n`);
  process.exit(1);
}
