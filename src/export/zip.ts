import { zipSync, type Zippable } from "fflate";

/** One file of a zip archive: its name (forward slashes, no leading slash) and bytes. */
export interface ZipEntry {
  name: string;
  data: Buffer | string;
}

/** Unix regular file, rw-r--r--, in the high half of the external attributes. */
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;

/**
 * A zip archive of `entries`, each deflated, written by fflate (names in UTF-8, flagged when not ASCII).
 * Plain zip, no zip64: an archive over 4 GiB or 65,535 entries is refused. Every entry carries the same
 * fixed date, so that the same entries always give the same bytes. Names must be relative, without `..`,
 * distinct, and not `__proto__` (fflate collects entries in a plain object, where that name is not a key).
 */
export function zipArchive(entries: readonly ZipEntry[]): Buffer {
  if (entries.length > 0xffff) throw new RangeError(`a zip without zip64 holds at most 65535 entries, not ${entries.length}`);
  const files: Zippable = Object.create(null) as Zippable;
  for (const entry of entries) {
    const name = entry.name;
    if (name === "" || name === "__proto__" || name.startsWith("/") || name.split("/").includes("..") || Object.hasOwn(files, name)) {
      throw new RangeError(`bad or repeated zip entry name '${name}'`);
    }
    files[name] = typeof entry.data === "string" ? Buffer.from(entry.data, "utf8") : entry.data;
  }
  // Every entry's date is 1980-01-01 00:00, the first a zip can hold. fflate reads dates in local time, so the
  // date is built in local time at each call (the zone may change between calls) and no zone moves it.
  const archive = zipSync(files, { mtime: new Date(1980, 0, 1), os: 3, attrs: FILE_ATTRIBUTES });
  if (archive.length > 0xffffffff) throw new RangeError("a zip without zip64 holds at most 4 GiB");
  return Buffer.from(archive.buffer, archive.byteOffset, archive.length);
}
