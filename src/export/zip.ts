import { crc32, deflateRawSync } from "node:zlib";

/** One file of a zip archive: its name (forward slashes, no leading slash) and bytes. */
export interface ZipEntry {
  name: string;
  data: Buffer | string;
}

/** The DOS date and time fields for a fixed instant, so the same entries always give the same bytes. */
function dosDateTime(date: Date): { time: number; day: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    day: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/**
 * A zip archive of `entries`, each deflated (or stored when deflate does not make it smaller), names in
 * UTF-8 (general purpose flag bit 11). Plain zip, no zip64: an archive over 4 GiB or 65,535 entries is
 * refused. Dated `mtime` (default 1980-01-01) so that the output is byte-for-byte reproducible.
 */
export function zipArchive(entries: readonly ZipEntry[], mtime = new Date(Date.UTC(1980, 0, 1))): Buffer {
  if (entries.length > 0xffff) throw new RangeError(`a zip without zip64 holds at most 65535 entries, not ${entries.length}`);
  const { time, day } = dosDateTime(mtime);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const names = new Set<string>();
  for (const entry of entries) {
    if (entry.name === "" || entry.name.startsWith("/") || entry.name.split("/").includes("..") || names.has(entry.name)) {
      throw new RangeError(`bad or repeated zip entry name '${entry.name}'`);
    }
    names.add(entry.name);
    const name = Buffer.from(entry.name, "utf8");
    const raw = typeof entry.data === "string" ? Buffer.from(entry.data, "utf8") : entry.data;
    const deflated = deflateRawSync(raw);
    const stored = deflated.length >= raw.length;
    const body = stored ? raw : deflated;
    const crc = crc32(raw) >>> 0;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    header.writeUInt16LE(0x0800, 6); // UTF-8 names
    header.writeUInt16LE(stored ? 0 : 8, 8);
    header.writeUInt16LE(time, 10);
    header.writeUInt16LE(day, 12);
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(body.length, 18);
    header.writeUInt32LE(raw.length, 22);
    header.writeUInt16LE(name.length, 26);
    header.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(stored ? 0 : 8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(day, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(header, name, body);
    centrals.push(central, name);
    offset += header.length + name.length + body.length;
    if (offset > 0xffffffff) throw new RangeError("a zip without zip64 holds at most 4 GiB");
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
