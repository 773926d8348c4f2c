import { gunzipSync } from "node:zlib";
import { GitGoodError } from "../errors.js";
import type { AttemptView, IndexRow, ViewIndex } from "./html-data.js";

/** A static report page's data, read back: what its views draw. */
export interface StaticPageData {
  index: ViewIndex & { rows: IndexRow[]; systems: string[] };
  /** One attempt as the page holds it (system prompt filled in), or null. */
  attempt(run: number, key: string): AttemptView | null;
  /** Every attempt the page holds, in the index's order. */
  attempts(): AttemptView[];
}

const block = (html: string, id: string): string | null => {
  const m = new RegExp(`<script type="text/plain" id="${id}">([A-Za-z0-9+/=]*)</script>`).exec(html);
  return m ? (m[1] ?? "") : null;
};

const unpack = (b64: string): unknown => JSON.parse(gunzipSync(Buffer.from(b64, "base64")).toString("utf8"));

/** Reads the data a page written by `gitgood report --html` carries (for tests and tools; the page's script does the same). */
export function readStaticPage(html: string): StaticPageData {
  const packedIndex = block(html, "gg-index");
  if (packedIndex === null) throw new GitGoodError("BAD_JSON", "the page is not a gitgood static report (it holds no index)");
  const index = unpack(packedIndex) as StaticPageData["index"];
  const chunks = new Map<number, (AttemptView & { run: number; system_id: number | null })[]>();
  const data: StaticPageData = {
    index,
    attempts: () => index.rows.flatMap((r) => data.attempt(r.run, r.key) ?? []),
    attempt(run, key) {
      const row = index.rows.find((r) => r.run === run && r.key === key);
      if (row?.chunk === undefined) return null;
      let chunk = chunks.get(row.chunk);
      if (!chunk) {
        const packed = block(html, `gg-chunk-${row.chunk}`);
        if (packed === null) return null;
        chunk = unpack(packed) as (AttemptView & { run: number; system_id: number | null })[];
        chunks.set(row.chunk, chunk);
      }
      const found = chunk.find((a) => a.run === run && a.record.key === key);
      if (!found) return null;
      return { ...found, system: found.system_id === null ? null : (index.systems[found.system_id] ?? null) };
    },
  };
  return data;
}
