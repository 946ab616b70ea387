import { inflateRawSync } from 'node:zlib';

/** Why an archive is refused: too big once inflated, or not a ZIP we can read. */
export class ZipRefused extends Error {
  constructor(
    readonly reason: 'too_large' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const MAX_ENTRIES = 10_000;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

function findEndOfCentralDirectory(data: Buffer): number {
  const stop = Math.max(0, data.length - 22 - 0xffff);
  for (let i = data.length - 22; i >= stop; i--) {
    if (data.readUInt32LE(i) === EOCD_SIGNATURE) return i;
  }
  throw new ZipRefused('unreadable', 'the archive has no end-of-central-directory record');
}

function readEntries(data: Buffer): Entry[] {
  if (data.length < 22) throw new ZipRefused('unreadable', 'the archive is truncated');
  const eocd = findEndOfCentralDirectory(data);
  const count = data.readUInt16LE(eocd + 10);
  const offset = data.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new ZipRefused('unreadable', 'ZIP64 archives are not supported');
  if (count > MAX_ENTRIES) throw new ZipRefused('too_large', `the archive has ${count} entries (at most ${MAX_ENTRIES})`);
  const entries: Entry[] = [];
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > data.length || data.readUInt32LE(p) !== CENTRAL_SIGNATURE) {
      throw new ZipRefused('unreadable', 'the archive directory is damaged');
    }
    const nameLength = data.readUInt16LE(p + 28);
    const extraLength = data.readUInt16LE(p + 30);
    const commentLength = data.readUInt16LE(p + 32);
    const entry: Entry = {
      method: data.readUInt16LE(p + 10),
      compressedSize: data.readUInt32LE(p + 20),
      size: data.readUInt32LE(p + 24),
      localOffset: data.readUInt32LE(p + 42),
      name: data.toString('utf8', p + 46, Math.min(data.length, p + 46 + nameLength)),
    };
    if (entry.compressedSize === 0xffffffff || entry.size === 0xffffffff || entry.localOffset === 0xffffffff) {
      throw new ZipRefused('unreadable', 'ZIP64 archives are not supported');
    }
    entries.push(entry);
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Refuses a ZIP archive (a DOCX is one) whose entries inflate to more than `maxInflatedBytes` in total,
 * before any parser unpacks it. The sizes the directory declares are checked first (an honest zip bomb
 * fails at once); then every entry is actually inflated with an output cap, so an archive that lies about
 * its sizes stops at the cap instead of filling memory. Costs at most one bounded inflation.
 */
export function assertZipWithinLimits(data: Buffer, maxInflatedBytes: number): { entries: number; inflatedBytes: number } {
  const entries = readEntries(data);
  const declared = entries.reduce((sum, e) => sum + e.size, 0);
  if (declared > maxInflatedBytes) {
    throw new ZipRefused('too_large', `it inflates to ${declared} bytes (at most ${maxInflatedBytes})`);
  }
  let inflated = 0;
  for (const e of entries) {
    if (e.method !== 0 && e.method !== 8) throw new ZipRefused('unreadable', `entry ${e.name} uses an unsupported compression method`);
    const p = e.localOffset;
    if (p + 30 > data.length || data.readUInt32LE(p) !== LOCAL_SIGNATURE) {
      throw new ZipRefused('unreadable', `entry ${e.name} is damaged`);
    }
    const start = p + 30 + data.readUInt16LE(p + 26) + data.readUInt16LE(p + 28);
    const raw = data.subarray(start, start + e.compressedSize);
    if (e.method === 0) {
      inflated += raw.length;
    } else {
      const budget = maxInflatedBytes - inflated;
      try {
        inflated += inflateRawSync(raw, { maxOutputLength: Math.max(1, budget) }).length;
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw new ZipRefused('too_large', `it inflates to more than ${maxInflatedBytes} bytes`);
        }
        throw new ZipRefused('unreadable', `entry ${e.name} cannot be inflated`);
      }
    }
    if (inflated > maxInflatedBytes) throw new ZipRefused('too_large', `it inflates to more than ${maxInflatedBytes} bytes`);
  }
  return { entries: entries.length, inflatedBytes: inflated };
}
