import js from "@eslint/js";
import tseslint from "typescript-eslint";

/*
 * Layer rules: a folder of src/ imports only from folders below it in the data flow (DESIGN.md).
 * ESLint replaces a rule's options per file rather than merging them, so every folder's entry below
 * lists everything that folder may not import.
 */

const CHILD_PROCESS = {
  group: ["node:child_process", "child_process"],
  message: "only src/git/ and src/sandbox/ start processes: run git through a typed function of src/git/",
};
const FRONT_ENDS = {
  regex: "^(\\.\\./)+(cli|mcp|a2a|report|export|view)/",
  message: "front ends (cli, mcp, a2a, report, export, view) sit on top: they import this folder, never the other way round",
};
/** Exports read runs and the report; the viewer reads them too. Only the CLI imports either. */
const ABOVE_EXPORT = {
  regex: "^(\\.\\./)+(cli|a2a|view)/",
  message: "src/export/ reads runs and the report: only the CLI (and the viewer) import it, never the other way round",
};
const ABOVE_VIEW = {
  regex: "^(\\.\\./)+(cli|a2a)/",
  message: "src/view/ is a front end below the CLI: the CLI imports it, not the other way round",
};
const AGENTS = {
  regex: "^(\\.\\./)+agents/",
  message: "scenarios and scoring sit below the agents: take what they need as a parameter",
};
const RUNS = {
  regex: "^(\\.\\./)+runs/",
  message: "runs sit above scenarios, scoring and agents: the runner calls them, not the other way round",
};
const ABOVE_MINING = {
  regex: "^(\\.\\./)+(scenarios|agents|runs)/",
  message: "mining and datasets come first in the data flow: they never import scenarios, agents or runs",
};
const OUTSIDE_PYTHON = {
  regex: "^\\.\\./(?!errors\\.js$|util/)",
  message: "src/python/ (parsing Python source) sits at the bottom: it imports only src/errors.ts and src/util/",
};
const ABOVE_ENVS = {
  regex: "^(\\.\\./)+(cli|mcp|a2a|report|agents|runs|scenarios|scoring|tools|dataset|mining|memory)/",
  message: "environments sit on the sandbox, git, model and util layers: scenarios, scoring and runs call them, not the other way round",
};
const OUTSIDE_GIT = {
  regex: "^\\.\\./(?!errors\\.js$|util/)",
  message: "src/git/ is the bottom layer: it imports only src/errors.ts and src/util/",
};

/** Raw argument lists for git (`repo.run([...])`, `sandbox.git([...])`) belong in src/git/ only. */
const RAW_GIT_CALL = {
  selector: "CallExpression[callee.property.name=/^(run|text|stream|git)$/][arguments.0.type='ArrayExpression']",
  message: "run git through a typed function of src/git/, not with a raw argument list",
};

// A rule given without options keeps the options of an earlier entry, so an empty list turns it off.
const restrict = (patterns, syntax = [RAW_GIT_CALL]) => ({
  "no-restricted-imports": patterns.length > 0 ? ["error", { patterns }] : "off",
  "no-restricted-syntax": syntax.length > 0 ? ["error", ...syntax] : "off",
});

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
  { files: ["src/**/*.ts"], rules: restrict([CHILD_PROCESS]) },
  { files: ["src/git/**/*.ts"], rules: restrict([OUTSIDE_GIT], []) },
  { files: ["src/sandbox/**/*.ts"], rules: restrict([]) },
  { files: ["src/python/**/*.ts"], rules: restrict([CHILD_PROCESS, OUTSIDE_PYTHON]) },
  { files: ["src/mining/**/*.ts", "src/dataset/**/*.ts"], rules: restrict([CHILD_PROCESS, ABOVE_MINING]) },
  { files: ["src/model/**/*.ts"], rules: restrict([CHILD_PROCESS, FRONT_ENDS, AGENTS, RUNS]) },
  { files: ["src/scenarios/**/*.ts", "src/scoring/**/*.ts"], rules: restrict([CHILD_PROCESS, FRONT_ENDS, AGENTS, RUNS]) },
  { files: ["src/agents/**/*.ts"], rules: restrict([CHILD_PROCESS, FRONT_ENDS, RUNS]) },
  // The A2A front end (green and participant agents) sits beside mcp/: it may use everything below, never cli/.
  { files: ["src/a2a/**/*.ts"], rules: restrict([CHILD_PROCESS, { regex: "^(\\.\\./)+cli/", message: "src/a2a/ is a library front end: the CLI imports it, not the other way round" }]) },
  { files: ["src/envs/**/*.ts"], rules: restrict([CHILD_PROCESS, ABOVE_ENVS]) },
  { files: ["src/export/**/*.ts"], rules: restrict([CHILD_PROCESS, ABOVE_EXPORT]) },
  { files: ["src/view/**/*.ts"], rules: restrict([CHILD_PROCESS, ABOVE_VIEW]) },
);
