// gitgood/internal: building blocks gitgood's own layers use, for plug-ins and tools that need them.
// No stability promise: names here may change in any release. The documented API is the root entry point.
export { Repo } from "./git/repo.js";
export type { RunOptions as GitRunOptions } from "./git/repo.js";
export type { RunResult } from "./git/process.js";
export type { CatFile, ObjectInfo, GitObject } from "./git/catfile.js";
export type { LongLivedGit, Waiting } from "./git/long-lived.js";
export type { GitVersion } from "./git/version.js";
export { PackCache } from "./git/packs.js";
export type { StorePlan, PackSpec } from "./git/store.js";
export type { WorkTreeMode } from "./git/shared-clone.js";
export { cacheDir, inCacheScope } from "./model/cache.js";
export { cacheRoot } from "./testenv/index.js";
export { parsePythonLiteral, formatPythonLiteral } from "./dataset/pyliteral.js";
export type { PyValue } from "./dataset/pyliteral.js";
export { AgentSession, toolProvider, type ToolProvider } from "./runs/session.js";
export { resultRecord } from "./runs/result.js";
export type { RecordInput, JudgeAccount } from "./runs/result.js";
export { settle, type Attempt, type Recorder } from "./runs/settle.js";
