import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { GitGoodError } from "../../errors.js";

/**
 * Reads all rows of a Parquet file as objects keyed by column name. hyparquet is pure JavaScript
 * (the compressors add gzip, zstd, brotli and lz4 in JavaScript and WebAssembly shipped inside the
 * package), so reading needs no native build and no download beyond the npm registry.
 */
export async function readParquetRows(file: string, bytes: Buffer): Promise<Record<string, unknown>[]> {
  // A fresh ArrayBuffer holding exactly the file: a Buffer may be a view into a larger shared pool.
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  try {
    return await parquetReadObjects({ file: data, compressors, rowFormat: "object" });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new GitGoodError("BAD_PARQUET", `${file}: not a readable Parquet file: ${why}`, { file });
  }
}
