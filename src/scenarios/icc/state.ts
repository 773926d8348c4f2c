import { z } from "zod";
import { ChainSchema } from "../shared/schemas.js";

/** Which hunks the agent may pick: the chain file's (as published) or every file's. */
export const ICC_SCOPES = ["file", "all"] as const;
export type IccScope = (typeof ICC_SCOPES)[number];

/** What an ICC sandbox keeps between calls. */
export const IccDataSchema = z.object({
  chain: ChainSchema,
  scope: z.enum(ICC_SCOPES),
  /** Nothing is left to commit. */
  done: z.boolean(),
});
export type IccData = z.infer<typeof IccDataSchema>;
