import path from "node:path";
import { z } from "zod";
import { DEFAULT_DOCKER_IMAGE, DEFAULT_ISOLATION, isolationBackend, isolationHelp, type IsolationRequest } from "../sandbox/isolation.js";
import { isolationLimits } from "./spec-limits.js";
import { defineRunSetting, specValue, type RunSpec } from "./spec-registry.js";

/*
 * The isolation a run asks for: the backend, the network, docker's image, the paths and variables agent
 * programs get. What the host gave is run.json's `isolation` record; none of these is part of the identity.
 */

/**
 * How agent programs are isolated: a registered backend's name (`gitgood worker --isolation` is the most a
 * queue's worker gives a ticket: queue/policy.ts). The isolation the host gave is run.json's `isolation` record.
 */
export const ISOLATION = defineRunSetting<string>({
  key: "isolation",
  option: "isolation",
  value: "<mode>",
  // Read when the help is shown: a plug-in registers its backends after this module is loaded.
  get help() {
    return `how agent programs are isolated, refused where it cannot run: ${isolationHelp()}`;
  },
  schema: z.string().min(1),
  parse: (text) => isolationBackend(text).name,
  default: DEFAULT_ISOLATION,
  identity: false,
  kind: "choice",
  group: "isolation",
});

/** Whether isolated agent programs may reach the network. */
export const NETWORK = defineRunSetting<boolean>({
  key: "network",
  option: "network",
  help: "let isolated agent programs use the network",
  schema: z.boolean(),
  default: false,
  identity: false,
  kind: "choice",
  group: "isolation",
});

/** The image agent programs run in under `--isolation docker`. */
export const DOCKER_IMAGE = defineRunSetting<string>({
  key: "docker_image",
  option: "docker-image",
  value: "<image>",
  help: "the image of --isolation docker",
  schema: z.string().min(1),
  parse: (text) => text,
  default: DEFAULT_DOCKER_IMAGE,
  identity: false,
  kind: "choice",
  group: "isolation",
});

/** Paths isolated agent programs may read besides their sandbox, made absolute where the option is read. */
export const ALLOW_READ = defineRunSetting<string[]>({
  key: "allow_read",
  option: "allow-read",
  value: "<path>",
  help: "a path isolated agent programs may read, e.g. their own installation (repeatable)",
  schema: z.array(z.string().min(1)),
  parse: (text) => [path.resolve(text)],
  repeatable: true,
  default: [],
  defaultLabel: "none",
  identity: false,
  kind: "choice",
  group: "isolation",
});

/** Host environment variables agent programs get besides the allow-list. */
export const PASS_ENV = defineRunSetting<string[]>({
  key: "pass_env",
  option: "pass-env",
  value: "<name>",
  help: "a host environment variable agent programs get (repeatable; by default they get only PATH, HOME, LANG, TERM and gitgood's own)",
  schema: z.array(z.string().min(1)),
  parse: (text) => [text],
  repeatable: true,
  default: [],
  defaultLabel: "none",
  identity: false,
  kind: "choice",
  group: "isolation",
});

/**
 * The isolation the spec asks for (`isolation`, `network`, `docker_image`, `allow_read`, `pass_env` and the
 * jail's limits; CPU time per process: `cpuSeconds`), for `chooseIsolation` to give as this host can.
 */
export function isolationRequest(spec: RunSpec | undefined, cpuSeconds: number | null): IsolationRequest {
  return {
    mode: specValue(spec, ISOLATION),
    network: specValue(spec, NETWORK),
    dockerImage: specValue(spec, DOCKER_IMAGE),
    allowRead: specValue(spec, ALLOW_READ),
    passEnv: specValue(spec, PASS_ENV),
    ...isolationLimits(spec ?? {}, cpuSeconds),
  };
}
