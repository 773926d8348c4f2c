import { Command } from "commander"; import type { CliIO } from "./io.js"; export function viewCommand(_io: CliIO): Command { return new Command("view"); }
