import { registerAgentKind, type AgentKind } from "../agents/index.js";
import type { FamilyDefinition } from "../families/definition.js";
import { registerFamily } from "../families/registry.js";
import { registerProvider, type ModelProvider } from "../model/providers/index.js";
import { registerReportFormat, type ReportFormat } from "../report/formats.js";
import { registerIsolation, type IsolationBackend } from "../sandbox/isolation.js";

/**
 * What a plug-in is given to extend gitgood with: one function per registry. Each name a plug-in brings
 * must be new; a clash ends the load with one line naming the plug-in.
 */
export interface PluginApi {
  /** A task family: its scenarios, sample types, agents, report section and formats, its part of the command line. */
  registerFamily(family: FamilyDefinition): void;
  /** A model provider: `--model NAME/model` then reaches its client. */
  registerProvider(provider: ModelProvider): void;
  /** An isolation backend: `--isolation NAME` then takes it. */
  registerIsolation(backend: IsolationBackend): void;
  /** An agent kind: `--agent NAME` then makes it. */
  registerAgentKind(kind: AgentKind): void;
  /** A report format: `gitgood report --NAME FILE` then writes it. */
  registerReportFormat(format: ReportFormat): void;
}

/** The registration API of this copy of gitgood, the one a plug-in's `register` is called with. */
export const PLUGIN_API: PluginApi = Object.freeze({ registerFamily, registerProvider, registerIsolation, registerAgentKind, registerReportFormat });

/** A plug-in module's register function: its default export, or an export named `register`. */
export type PluginRegister = (api: PluginApi) => void | Promise<void>;
