import { spawn, spawnSync } from "node:child_process";
import { programPaths } from "./mounts.js";
import { HOME_AT, SHARED_AT, jailEnv, lastLine, type Isolation, type IsolationBackend, type Jail } from "./types.js";
import { errnoCode } from "../../util/errno.js";

export const DEFAULT_DOCKER_IMAGE = "node:20-bookworm";

/** Variables that describe the host process rather than the program's environment. */
const HOST_ONLY = new Set(["PWD", "OLDPWD", "SHLVL", "_", "HOSTNAME"]);

/** The `docker run` arguments for a program in a container named `name`: the same mounts, read-only root, no network by default, the limits. */
export function dockerArgs(iso: Isolation, jail: Jail, name: string, argv: readonly string[]): string[] {
  const args = ["run", "--rm", "-i", "--init", "--name", name, "--read-only"];
  if (!iso.network) args.push("--network", "none");
  if (typeof process.getuid === "function" && typeof process.getgid === "function") {
    args.push("--user", `${process.getuid()}:${process.getgid()}`);
  }
  const limits = iso.limits;
  if (limits) {
    args.push("--pids-limit", String(limits.processes), "--memory", String(limits.memory), "--memory-swap", String(limits.memory));
    args.push("--ulimit", `fsize=${limits.disk}:${limits.disk}`);
    if (limits.cpu !== null) args.push("--ulimit", `cpu=${limits.cpu}:${limits.cpu}`);
  }
  args.push("--tmpfs", `/tmp:rw,exec,mode=1777${limits ? `,size=${limits.disk}` : ""}`, "--tmpfs", `${HOME_AT}:rw,exec,mode=1777${limits ? `,size=${limits.disk}` : ""}`);
  for (const [real, at] of programPaths(iso, false)) args.push("-v", `${real}:${at}:ro`);
  if (jail.shared) args.push("-v", `${jail.shared}:${SHARED_AT}:ro`);
  args.push("-v", `${jail.work}:${jail.work}`, "-w", jail.cwd);
  // `-e NAME` takes the value from docker's own environment, so no value shows in a process listing.
  for (const key of Object.keys(jail.env).sort()) if (!HOST_ONLY.has(key)) args.push("-e", key);
  args.push(iso.dockerImage, ...argv);
  return args;
}

let probe: string | null | undefined;

/** Null when a Docker daemon answers `docker info` (asked once per process), else why not. */
export function dockerUnavailable(): string | null {
  if (probe !== undefined) return probe;
  const r = spawnSync("docker", ["info"], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", timeout: 20_000 });
  if (r.error) probe = `docker cannot be started (${errnoCode(r.error) ?? r.error.message})`;
  else if (r.status !== 0) probe = `'docker info' fails: ${lastLine(r.stderr) || `exit code ${String(r.status)}`}`;
  else probe = null;
  return probe;
}

let containers = 0;

/** A container per program (`docker run`), from `--docker-image`; killing it removes the container. */
export const dockerBackend: IsolationBackend = {
  name: "docker",
  summary: "a container per program (needs a Docker daemon; --docker-image)",
  usesImage: true,
  isolates: true,
  unavailable: dockerUnavailable,
  enforcement: (limits) => ({
    processes: { how: "docker --pids-limit", weak: false },
    memory: { how: "docker --memory (swap included)", weak: false },
    disk: { how: "/tmp a tmpfs of that size, the work tree's growth watched, RLIMIT_FSIZE per file", weak: false },
    cpu: { how: limits.cpu === null ? "none asked" : "docker --ulimit cpu (per process)", weak: false },
  }),
  command(iso, jail, argv) {
    const name = `gitgood-${process.pid}-${++containers}-${Date.now().toString(36)}`;
    return {
      file: "docker",
      args: dockerArgs(iso, jail, name, argv),
      env: jailEnv(jail.env),
      // Killing the docker client leaves the container running; removing it stops what runs inside.
      afterKill: () => {
        const rm = spawn("docker", ["rm", "-f", name], { stdio: "ignore", detached: true });
        rm.on("error", () => undefined);
        rm.unref();
      },
    };
  },
  node: () => "node",
};
