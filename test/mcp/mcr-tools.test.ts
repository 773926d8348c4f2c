import { describe, expect, it } from "vitest";
import { connectInMemory, sessionSource, singleSource, useMcpFixtures } from "../helpers/mcp.js";

const { fx, outDir } = useMcpFixtures("mcr-tools");

async function listed(extended: boolean): Promise<{ names: string[]; rejected: string }> {
  const source = await singleSource(fx, fx.mergeSample.id, outDir());
  if (source.mode !== "single") throw new Error("a single-scenario source was expected");
  const { client, closed } = await connectInMemory(extended ? { ...source, settings: { mcrTools: "extended" } } : source);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const r = await client.callTool({ name: "write_file_at", arguments: { relative_path_from_project_root: "x.py", content: "", reason: "r" } });
    return { names, rejected: r.isError ? JSON.stringify(r.content) : "" };
  } finally {
    await client.close();
    await closed;
  }
}

describe("gitgood mcp --mcr-tools", () => {
  it("serves the published MCR tools by default and adds write_file_at with extended", async () => {
    const paper = await listed(false);
    expect(paper.names).not.toContain("write_file_at");
    expect(paper.rejected).toMatch(/the open scenario is MCR, which has no tool write_file_at/);
    const extended = await listed(true);
    expect(extended.names).toContain("write_file_at");
    expect(extended.rejected).toBe("");
  });

  it("lists write_file_at among every scenario's tools with --all-tools", async () => {
    const { client, closed } = await connectInMemory(await sessionSource(fx, outDir(), true));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("write_file_at");
    } finally {
      await client.close();
      await closed;
    }
  });
});
