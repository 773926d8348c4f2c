import { z } from "zod";
import { ChainSchema, ConflictStateSchema } from "../shared/schemas.js";
import { TODO_COMMANDS } from "./todo.js";

const IR_PHASES = ["planning", "conflict", "done"] as const;
export type IrPhase = (typeof IR_PHASES)[number];

/** What an IR sandbox keeps between calls. */
export const IrDataSchema = z.object({
  chain: ChainSchema,
  todo: z.array(z.object({ commit_index: z.number().int().min(0), command: z.enum(TODO_COMMANDS), commit_msg: z.string().optional() })),
  phase: z.enum(IR_PHASES),
  conflicts: ConflictStateSchema.nullable(),
  /** Index of the commit whose step stopped on a conflict. */
  stoppedAt: z.number().int().min(0).nullable(),
});
export type IrData = z.infer<typeof IrDataSchema>;
