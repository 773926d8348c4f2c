// The programs the test suite needs from the system (not from npm), in one table read by
// scripts/setup-system.js (which installs them) and by the test suite's start (which refuses to run without them).
import { spawnSync } from "node:child_process";

/** True when `cmd args…` runs and exits 0 within 20 s. */
function runs(cmd, args) {
  // Generous: on a loaded machine Python alone can take many seconds to start; the limit only catches a hang.
  const r = spawnSync(cmd, args, { stdio: "ignore", timeout: 120_000 });
  return r.status === 0;
}

export const SYSTEM_DEPS = [
  {
    name: "bubblewrap",
    debian: "bubblewrap",
    why: "agent programs and test environments run in Linux namespaces (the isolation and security tests)",
    present: () => runs("bwrap", ["--version"]),
    // Installed is not enough: containers with a strict seccomp profile or hosts without unprivileged user
    // namespaces have a bwrap that cannot make a jail.
    works: () => runs("bwrap", ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"]),
    broken: "bubblewrap is installed but cannot create namespaces here (a container's seccomp profile, or user namespaces turned off)",
  },
  {
    name: "pytest",
    debian: "python3-pytest",
    why: "SWE and commit0 environments run real pytest suites",
    present: () => runs("python3", ["-m", "pytest", "--version"]),
  },
  {
    name: "chromium",
    debian: "chromium",
    why: "the viewer's browser tests drive Debian's chromium through playwright-core (no browser is downloaded)",
    present: () => runs(process.env.GITGOOD_CHROMIUM ?? "/usr/bin/chromium", ["--version"]),
  },
  {
    name: "redis-server",
    debian: "redis-server",
    why: "the job-queue tests start their own private Redis for BullMQ (its Lua scripts need a real server)",
    present: () => runs("redis-server", ["--version"]),
  },
];

/** The first problem with the system dependencies, as one line, or null when all are there and work. */
export function systemProblem(deps = SYSTEM_DEPS) {
  for (const dep of deps) {
    if (!dep.present()) {
      return `${dep.name} is missing (${dep.why}): run 'npm run setup:system' (or 'apt-get install ${dep.debian}')`;
    }
    if (dep.works && !dep.works()) return `${dep.broken}; tests that need ${dep.name} cannot run`;
  }
  return null;
}
