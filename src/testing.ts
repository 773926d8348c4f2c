// gitgood/testing: a model that answers from a script, for tests and dry runs without an endpoint.
export { ScriptedModelClient, type ScriptStep } from "./model/scripted.js";
export type { ModelClient, ModelRequest, ModelReply, ChatMessage, ToolCall, ToolSpec, Usage } from "./model/types.js";
// Reading a static report page back (its embedded data), for tests of reports and report formats.
export { readStaticPage, type StaticPageData } from "./report/html-read.js";
