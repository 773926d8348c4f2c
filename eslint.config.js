import js from "@eslint/js";
import tseslint from "typescript-eslint";

/*
 * The layers of src/, bottom first: a folder imports only from folders listed before it (DESIGN.md, the data
 * flow). Every folder of src/ must be here (test/architecture/layers.test.ts checks it); each folder's forbidden
 * imports are generated from its place in this list.
 */
export const LAYERS = [
  "errors", // the error catalog
  "util", // small helpers with no domain
  "python", // Python source analysis (tree-sitter)
  "git", // the only door to git
  "model", // model clients, response cache, connection limits
  "proxy", // the recording model proxy external agents talk to, and its forwarder into a jail
  "tools", // the Tool type and its adapters
  "sandbox", // answer-free sandboxes and isolation backends
  "testenv", // test environments for test-scored families
  "dataset", // sample schemas and importers
  "mining", // samples from history
  "scoring", // scorers
  "swe", // SWE evaluation (domain code of the SWE family)
  "commit0", // repository completion (domain code of the COMMIT0 family)
  "memory", // GCC memory over a repository
  "scenarios", // the scenario/family registry and one folder per family
  "agents", // agents
  "runs", // planning, executing and storing runs
  "queue", // the BullMQ job queue on Redis: producer, workers, shared connection limit, status
  "families", // the family registry: each family's report section, options, agents and formats
  "report", // report formats
  "export", // exports of runs: training data, ATIF trajectories, Inspect AI logs, CI formats
  "leaderboard", // the static leaderboard site over run directories (reads runs and the report's statistics)
  "live", // dated releases mined from pinned repositories: the QA gate, the canary, the manifest
  "mcp", // the MCP front end
  "a2a", // the A2A front end
  "serve", // the reinforcement-learning environment servers (OpenEnv, ORS) over episodes of the MCP attempts
  "view", // the local web viewer over run directories (reads runs, report and export; the MCP guard)
  "demo", // the demo repository for the quick start
  "plugins", // loading plug-ins: the registration API they are given
  "cli", // one file per verb
];

/** Only these folders start processes; everything else runs git and programs through them. */
const PROCESS_FOLDERS = new Set(["git", "sandbox"]);

const CHILD_PROCESS = {
  group: ["node:child_process", "child_process"],
  message: "only src/git/ and src/sandbox/ start processes: run git through a typed function of src/git/",
};

/** Only the CLI declares command-line options: a family declares its own as data (families/command-line-types.ts), which cli/ turns into options. */
const COMMANDER_FOLDERS = new Set(["cli"]);

const COMMANDER = {
  group: ["commander"],
  message: "the command line is declared in src/cli/ (a run setting: defineRunSetting in src/runs/spec.ts; a family's options and verbs: CommandOption and CommandDefinition data, which cli/ turns into options)",
};

/** Raw argument lists for git (`repo.run([...])`, `sandbox.git([...])`) belong in src/git/ only. */
const RAW_GIT_CALL = {
  selector: "CallExpression[callee.property.name=/^(run|text|stream|git)$/][arguments.0.type='ArrayExpression']",
  message: "run git through a typed function of src/git/, not with a raw argument list",
};

/** The import patterns a folder may not use: every folder above it in LAYERS, and child_process where barred. */
function forbiddenFor(folder) {
  const above = LAYERS.slice(LAYERS.indexOf(folder) + 1);
  const patterns = [];
  if (!PROCESS_FOLDERS.has(folder)) patterns.push(CHILD_PROCESS);
  if (!COMMANDER_FOLDERS.has(folder)) patterns.push(COMMANDER);
  if (above.length > 0) {
    patterns.push({
      regex: `^(\\.\\./)+(${above.join("|")})(/|\\.js$)`,
      message: `src/${folder}/ sits below ${above.join(", ")} in the layers (eslint.config.js): take what you need as a parameter, or move it down`,
    });
  }
  return patterns;
}

const layerRules = LAYERS.map((folder) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: {
    "no-restricted-imports": ["error", { patterns: forbiddenFor(folder) }],
    "no-restricted-syntax": folder === "git" ? "off" : ["error", RAW_GIT_CALL],
  },
}));

export default tseslint.config(
  { ignores: ["dist/", "dist-check/", "node_modules/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "no-restricted-imports": ["error", { patterns: [CHILD_PROCESS] }],
      "no-restricted-syntax": ["error", RAW_GIT_CALL],
    },
  },
  ...layerRules,
);
