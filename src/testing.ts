// gitgood/testing: a model that answers from a script, for tests and dry runs without an endpoint.
export { ScriptedModelClient, type ScriptStep } from "./model/scripted.js";
export type { ModelClient, ModelRequest, ModelReply, ChatMessage, ToolCall, ToolSpec, Usage } from "./model/types.js";
// Plug-ins: the registration API a plug-in's register function is given, and the conformance suites.
export { PLUGIN_API, familyConformance, isolationConformance, type ConformanceCheck, type FamilyFixture, type PluginApi, type PluginRegister } from "./plugins/index.js";
// Reading a static report page back (its embedded data), for tests of reports and report formats.
export { readStaticPage, type StaticPageData } from "./report/html-read.js";
export type { ViewIndex, IndexRow, IndexRun, IndexSection, AttemptView, PhaseTiming } from "./report/html-data.js";
export { SKILLS, type Skill, type SkillRow, type LabelCount } from "./report/skills.js";
export type { RunProgress } from "./runs/progress.js";
export type { Turn, TurnCall } from "./report/conversation.js";
