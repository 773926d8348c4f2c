export { PLUGIN_API, type PluginApi, type PluginRegister } from "./api.js";
export { loadPlugins, type PluginRequest } from "./load.js";
export { resolvePlugin } from "./resolve.js";
export type { ConformanceCheck } from "./conformance.js";
export { isolationConformance } from "./isolation-conformance.js";
export { familyConformance, type FamilyFixture } from "./family-conformance.js";
