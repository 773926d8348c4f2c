#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  // Read only when a verb asks: touching process.stdin costs start-up time.
  get stdin() {
    return process.stdin;
  },
  ownsProcess: true,
});
