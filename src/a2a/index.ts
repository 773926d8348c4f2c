// gitgood/a2a: the A2A front end. Kept out of the root entry point so that `import "gitgood"` never loads
// @a2a-js/sdk or express. The green agent assesses participants; the participant serves gitgood's own
// agents to another green agent.
export { serveA2a, agentCard, AGENT_CARD_PATH, type A2aServeOptions, type A2aHandle, type CardInfo } from "./server.js";
export { GreenExecutor, DEFAULT_INSTANCE_TIMEOUT, type GreenOptions } from "./green.js";
export type { ToolHost, HostedTools } from "../agents/a2a.js";
export type { McpToolHost } from "../mcp/tool-host.js";
export type { AccessPolicy } from "../mcp/guard.js";
export { ParticipantExecutor, DEFAULT_PARTICIPANT_TURNS, type ParticipantOptions } from "./participant.js";
export { parseAssessment, assessmentScenarios, assessmentSamples, type Assessment, type AssessmentConfig } from "./assessment.js";
export { assessmentResult, type ResultData, type ScenarioResult } from "./result.js";
