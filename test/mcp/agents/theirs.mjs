// A small MCP agent for tests, run by `gitgood run --agent mcp-command`: it starts the server named in
// the configuration file GITGOOD_MCP_CONFIG, resolves every conflict of an MCR task by taking the
// merged branch's side (read from the conflicted files in its working directory), and submits.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const config = JSON.parse(readFileSync(process.env.GITGOOD_MCP_CONFIG, "utf8"));
const entry = config.mcpServers.gitgood;
const client = new Client({ name: "theirs-agent", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args }));

const text = (r) => r.content.map((c) => c.text).join("\n");
const must = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) {
    process.stderr.write(`${name}: ${text(r)}\n`);
    process.exit(1);
  }
  return text(r);
};

await must("get_task", {});
const data = JSON.parse((await client.readResource({ uri: "gitgood://task.json" })).contents[0].text);
const region = /^<<<<<<< .*\r?\n[\s\S]*?^=======\r?\n([\s\S]*?)^>>>>>>> .*\r?\n/gm;
for (const file of data.files) {
  for (const m of readFileSync(file, "utf8").matchAll(region)) {
    await must("resolve_current_merge_conflict_with", { content: m[1], reason: "take the merged branch's side" });
  }
}
process.stdout.write(`${await must("finish_scenario", {})}\n`);
await client.close();
