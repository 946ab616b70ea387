/**
 * Wire encoding of SMS bodies for SMPP: GSM 03.38 (7-bit default alphabet with the extension table, sent
 * unpacked, one septet per octet, data_coding 0) or UCS-2 (UTF-16BE, data_coding 8), and the split into
 * concatenated parts with an 8-bit-reference UDH.
 *
 * The split into parts is the segmenter's (src/sms/segmenter.ts), so the parts sent are the
 * segments charged; this module only turns text into bytes. Inbound bodies are decoded by the smpp
 * package (by data_coding) before the carrier sees them.
 */
import { segmentSms } from '../segmenter';

/** GSM 03.38 basic table: the character at index i is septet i (0x1B is the escape to the extension table). */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** GSM 03.38 extension table: character → septet that follows the 0x1B escape. */
const GSM_EXTENSION: Record<string, number> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};

const ESCAPE = 0x1b;
const basicIndex = new Map<string, number>([...GSM_BASIC].map((c, i) => [c, i]));

export const DATA_CODING_GSM7 = 0x00;
export const DATA_CODING_UCS2 = 0x08;
/** At most this many concatenated parts (the UDH counts them in one octet). */
export const MAX_PARTS = 255;

/** Septets of one character: one for the basic table, two (escape + code) for the extension table. */
function gsmSeptets(ch: string): number[] {
  const basic = basicIndex.get(ch);
  if (basic !== undefined && basic !== ESCAPE) return [basic];
  const ext = GSM_EXTENSION[ch];
  if (ext !== undefined) return [ESCAPE, ext];
  throw new Error(`Not a GSM 03.38 character: U+${ch.codePointAt(0)!.toString(16)}`);
}

/** Unpacked GSM 03.38 septets, one per octet. */
export function encodeGsm7(text: string): Buffer {
  const out: number[] = [];
  for (const ch of text) out.push(...gsmSeptets(ch));
  return Buffer.from(out);
}

export function encodeUcs2(text: string): Buffer {
  const le = Buffer.from(text, 'utf16le');
  return le.swap16();
}

export interface EncodedSms {
  dataCoding: number;
  /** Payload of each part, without UDH. One part when the body fits a single SMS. */
  parts: Buffer[];
}

/**
 * Encodes a body into SMS parts using the segmenter's split (so the parts sent are the segments
 * charged): GSM-7 unpacked septets (data_coding 0) or UCS-2 (data_coding 8).
 */
export function encodeSms(body: string): EncodedSms {
  const segmented = segmentSms(body);
  if (segmented.encoding === 'GSM-7') return { dataCoding: DATA_CODING_GSM7, parts: segmented.parts.map(encodeGsm7) };
  return { dataCoding: DATA_CODING_UCS2, parts: segmented.parts.map(encodeUcs2) };
}

/** The concatenation UDH with an 8-bit reference: UDHL 5, IEI 0x00, IEDL 3, ref, total, seq (1-based). */
export function concatUdh(ref: number, total: number, seq: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, ref & 0xff, total, seq]);
}

export interface ConcatInfo {
  ref: number;
  total: number;
  seq: number;
}

/**
 * Reads the concatenation element from UDH information elements as the smpp package decodes them
 * (`[iei, length, ...data]`): IEI 0x00 (8-bit ref) or 0x08 (16-bit ref).
 */
export function concatFromUdh(elements: Buffer[] | undefined): ConcatInfo | undefined {
  for (const ie of elements ?? []) {
    if (ie[0] === 0x00 && ie[1] === 3 && ie.length >= 5) return { ref: ie[2]!, total: ie[3]!, seq: ie[4]! };
    if (ie[0] === 0x08 && ie[1] === 4 && ie.length >= 6) return { ref: ie.readUInt16BE(2), total: ie[4]!, seq: ie[5]! };
  }
  return undefined;
}
