import { realpathSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { beyondSpec, isolationRequest, specFromOptions, type RunSpec } from "../runs/spec.js";
import type { JobTicket } from "../runs/ticket.js";
import { DEFAULT_DOCKER_IMAGE, DEFAULT_ISOLATION, modeIsolates } from "../sandbox/isolation.js";

/**
 * The agent kinds a worker runs only when its operator names them (`--allow-agents`): each runs a
 * program or reaches an address the ticket chooses (`command`, `mcp-command`: a shell command; `a2a`: a URL).
 */
export const NAMED_ONLY_AGENTS: readonly string[] = ["command", "mcp-command", "a2a"];

/** The most a job may get on this worker, set by its operator's flags; a ticket may ask for less, never more. */
export interface WorkerPolicy {
  /** The isolation backend (`--isolation`): a ticket's must be it, or any isolating one when it is `none`. */
  isolation: string;
  /** The image docker isolation may use (`--docker-image`). */
  dockerImage: string;
  /** Whether agent programs may reach the network (`--network`). */
  network: boolean;
  /** Paths agent programs may be shown (`--allow-read`), resolved; a ticket's must be one of them or under one. */
  allowRead: readonly string[];
  /** Host variables agent programs may get (`--pass-env`). */
  passEnv: readonly string[];
  /** Kinds of NAMED_ONLY_AGENTS this worker runs (`--allow-agents`). */
  agents: readonly string[];
  /** The run settings (`--max-processes`, `--max-memory`, …): a ticket's limits at most these, an operator-only setting this or its default. */
  spec: RunSpec;
}

/** The policy of a worker given no flags: the default isolation, no network, no extra reads or variables, no named-only agents. */
export function defaultPolicy(): WorkerPolicy {
  return { isolation: DEFAULT_ISOLATION, dockerImage: DEFAULT_DOCKER_IMAGE, network: false, allowRead: [], passEnv: [], agents: [], spec: specFromOptions({}) };
}

/** A path with its links resolved, or as given (resolved) when it does not exist: it is then refused by the isolation. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function within(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Checks a ticket against the worker's policy: the first thing it asks for beyond it (an agent kind, an
 * isolation, the network, a path to read, a variable) is POLICY_REFUSED in one line.
 */
export function checkPolicy(ticket: JobTicket, policy: WorkerPolicy): void {
  const refuse = (what: string, flag: string): never => {
    throw new GitGoodError("POLICY_REFUSED", `the job asks for ${what}, which this worker does not give (${flag})`, { key: ticket.key });
  };
  const kind = ticket.agent.name;
  if (NAMED_ONLY_AGENTS.includes(kind) && !policy.agents.includes(kind)) refuse(`the ${kind} agent`, `--allow-agents ${kind}`);
  // What the ticket's spec asks of the isolation (a setting it leaves out: its default).
  const iso = isolationRequest(ticket.spec, null);
  const sameMode = iso.mode === policy.isolation;
  if (!sameMode && !(policy.isolation === "none" && modeIsolates(iso.mode))) refuse(`--isolation ${iso.mode}`, `it runs --isolation ${policy.isolation}`);
  if (iso.mode === "docker" && iso.dockerImage !== policy.dockerImage) refuse(`the docker image ${iso.dockerImage ?? ""}`, `--docker-image`);
  if (iso.network === true && !policy.network && modeIsolates(iso.mode)) refuse("the network", "--network");
  const allowed = policy.allowRead.map(real);
  for (const p of iso.allowRead ?? []) {
    if (!allowed.some((dir) => within(real(p), dir))) refuse(`reading ${p}`, "--allow-read");
  }
  for (const name of iso.passEnv ?? []) {
    if (!policy.passEnv.includes(name)) refuse(`the variable ${name}`, `--pass-env ${name}`);
  }
  // The limits as the ticket states them: within the worker's.
  const over = beyondSpec(policy.spec, ticket.spec ?? {});
  if (over) refuse(`${over.key} ${JSON.stringify(over.asked)}`, `--${over.setting.option} ${JSON.stringify(over.most)}`);
}
