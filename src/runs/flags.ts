/*
 * The flags the verbs that set up sandboxes and run agents (`run`, `bench`, `score`, `env`, `mcp`) parse
 * into; their options are declared in cli/run-options.ts. What the flags build (the models, the isolation,
 * the selection, run.json) is in from-flags.ts.
 */

/**
 * The flags of `run` and `bench`; the families' own flags (`--hints`, `--attempts`, …) travel alongside,
 * read by each family, and so do the declared run settings (spec.ts: `specFromOptions` reads them:
 * the limits, `--timeout`, `--max-turns`, `--repeats`, `--memory`, `--shard`, `--history`, `--mcr-tools`
 * the selection, `--ids`, `--scenario`, `--difficulty`, `--language`, `--sample`, `--limit`, `--judge`, and how
 * models are asked, `--temperature`, `--max-tokens`, `--seed`, `--max-connections`, `--no-cache`, and the agent's
 * prices, `--price-in`, `--price-out`, the isolation asked for, `--isolation`, `--network`, `--docker-image`,
 * `--allow-read`, `--pass-env`, and the agent's own, `--command`, `--url`, `--agent-version`, `--tools`).
 */
export interface RunFlags {
  dataset?: string[];
  repo?: string;
  repos?: string;
  agent: string;
  model?: string;
  jobs: number;
  out?: string;
  json: boolean;
  dryRun: boolean;
  retryErrors: boolean;
  allowErrors: boolean;
  failUnder?: number;
}

