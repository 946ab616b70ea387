import { constants, crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** Raw deflate data (method 8). */
  deflated: Buffer;
  crc: number;
  /** Uncompressed size written in the headers (a zip bomb may lie). */
  declaredSize: number;
}

export const deflatedEntry = (name: string, content: Buffer): ZipEntry => ({
  name,
  deflated: deflateRawSync(content),
  crc: crc32(content),
  declaredSize: content.length,
});

/**
 * A deflate stream of `megabytes` MB of zeros built from one compressed megabyte repeated (each piece ends
 * in a sync flush, the last block is an empty final one): a zip bomb's payload without compressing it all.
 */
export function zeroBombEntry(name: string, megabytes: number, declaredSize = megabytes * 2 ** 20): ZipEntry {
  const piece = deflateRawSync(Buffer.alloc(2 ** 20, 0x20), { finishFlush: constants.Z_SYNC_FLUSH });
  const deflated = Buffer.concat([...Array.from({ length: megabytes }, () => piece), deflateRawSync(Buffer.alloc(0))]);
  return { name, deflated, crc: 0, declaredSize };
}

/** A ZIP archive (no ZIP64, no data descriptors) of the given entries. */
export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.deflated.length, 18);
    local.writeUInt32LE(e.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(e.crc >>> 0, 16);
    central.writeUInt32LE(e.deflated.length, 20);
    central.writeUInt32LE(e.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.deflated);
    centrals.push(central, name);
    offset += local.length + name.length + e.deflated.length;
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
