import type { Agent, Session } from "./agent.js";

/**
 * Drives each scenario's real tools to its recorded answer, with knowledge no real agent has (each
 * scenario's definition says how). It checks that a scenario can be solved at all.
 */
export class OracleAgent implements Agent {
  readonly name = "oracle";
  readonly workTree = "tools";
  /** It asks no model: what its attempts spent is known to be nothing (0 tokens), not unknown. */
  readonly metered = true;

  async run(session: Session): Promise<void> {
    await session.definition.oracle.run(session);
  }
}
