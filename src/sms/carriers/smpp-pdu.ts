/**
 * Pure SMPP 3.4 helpers for the carrier: addresses, submit_sm status → CarrierError classification,
 * delivery receipt parsing, and reassembly of concatenated inbound messages.
 */
import type { DecodedMessage } from 'smpp';
import type { ReceiptStatus } from '../carrier';
import type { ConcatInfo } from './smpp-encoding';

// --- addresses ---------------------------------------------------------------------------------------

export const TON = { unknown: 0, international: 1, national: 2, networkSpecific: 3, alphanumeric: 5 } as const;
export const NPI = { unknown: 0, isdn: 1 } as const;

export interface SmppAddress {
  addr: string;
  ton: number;
  npi: number;
}

/** E.164 → international/ISDN without "+"; 3–8 digits → a short code; anything else → alphanumeric sender. */
export function toSmppAddress(address: string): SmppAddress {
  if (/^\+\d{1,15}$/.test(address)) return { addr: address.slice(1), ton: TON.international, npi: NPI.isdn };
  if (/^\d{3,8}$/.test(address)) return { addr: address, ton: TON.networkSpecific, npi: NPI.unknown };
  if (/^\d+$/.test(address)) return { addr: address, ton: TON.unknown, npi: NPI.isdn };
  return { addr: address, ton: TON.alphanumeric, npi: NPI.unknown };
}

/** An address from a deliver_sm: international numbers (and long all-digit ones) become E.164. */
export function fromSmppAddress(addr: string, ton: number): string {
  if (/^\d+$/.test(addr) && (ton === TON.international || (ton === TON.unknown && addr.length >= 10))) return `+${addr}`;
  return addr;
}

// --- submit_sm command_status ------------------------------------------------------------------------

export interface SubmitFailure {
  /** Our error code (docs/sms-error-codes.md). */
  code: string;
  retryable: boolean;
  /** SMPP name of the status, for logs and messages. */
  status: string;
}

/** SMPP 3.4 §5.1.3 command_status values we classify; the rest are `carrier_rejected`, not retryable. */
const STATUS: Record<number, [name: string, code: string, retryable: boolean]> = {
  0x0001: ['ESME_RINVMSGLEN', 'invalid_message', false],
  0x0004: ['ESME_RINVBNDSTS', 'carrier_unavailable', true],
  0x0008: ['ESME_RSYSERR', 'carrier_error', true],
  0x000a: ['ESME_RINVSRCADR', 'invalid_sender', false],
  0x000b: ['ESME_RINVDSTADR', 'invalid_destination', false],
  0x0014: ['ESME_RMSGQFUL', 'carrier_queue_full', true],
  0x0033: ['ESME_RINVNUMDESTS', 'invalid_destination', false],
  0x0043: ['ESME_RINVESMCLASS', 'invalid_message', false],
  0x0045: ['ESME_RSUBMITFAIL', 'carrier_error', true],
  0x0048: ['ESME_RINVSRCTON', 'invalid_sender', false],
  0x0049: ['ESME_RINVSRCNPI', 'invalid_sender', false],
  0x0050: ['ESME_RINVDSTTON', 'invalid_destination', false],
  0x0051: ['ESME_RINVDSTNPI', 'invalid_destination', false],
  0x0058: ['ESME_RTHROTTLED', 'carrier_throttled', true],
  0x0064: ['ESME_RX_T_APPN', 'carrier_error', true],
  0x0065: ['ESME_RX_P_APPN', 'carrier_rejected', false],
  0x0066: ['ESME_RX_R_APPN', 'carrier_rejected', false],
  0x00c0: ['ESME_RINVTLVSTREAM', 'invalid_message', false],
  0x00fe: ['ESME_RDELIVERYFAILURE', 'carrier_rejected', false],
  0x0101: ['ESME_RPROHIBITED', 'carrier_rejected', false],
  0x0104: ['ESME_RINVDCS', 'invalid_message', false],
};

export function classifySubmitStatus(commandStatus: number): SubmitFailure {
  const known = STATUS[commandStatus];
  if (known) return { status: known[0], code: known[1], retryable: known[2] };
  return { status: `0x${commandStatus.toString(16).padStart(8, '0')}`, code: 'carrier_rejected', retryable: false };
}

// --- delivery receipts -------------------------------------------------------------------------------

/** esm_class message-type bits (2–5): anything but 0 is a receipt or acknowledgement, never an MO message. */
export const isReceiptEsmClass = (esmClass: number): boolean => (esmClass & 0x3c) !== 0;
export const ESM_CLASS_UDHI = 0x40;

/** Final receipt states; ENROUTE / ACCEPTD / SCHEDULED are intermediate and not reported. */
const TEXT_STATES: Record<string, ReceiptStatus | null> = {
  DELIVRD: 'delivered',
  UNDELIV: 'undelivered',
  EXPIRED: 'expired',
  REJECTD: 'rejected',
  DELETED: 'failed',
  UNKNOWN: 'unknown',
  ENROUTE: null,
  ACCEPTD: null,
  SCHEDUL: null,
};

/** message_state TLV (SMPP 3.4 §5.2.28). */
const TLV_STATES: Record<number, ReceiptStatus | null> = {
  0: null, // SCHEDULED
  1: null, // ENROUTE
  2: 'delivered',
  3: 'expired',
  4: 'failed', // DELETED
  5: 'undelivered',
  6: null, // ACCEPTED
  7: 'unknown',
  8: 'rejected',
  9: 'failed', // SKIPPED
};

export interface ReceiptFields {
  /** short_message or message_payload text. */
  text?: string;
  receiptedMessageId?: string;
  messageState?: number;
  /** network_error_code TLV: type octet then a 16-bit code. */
  networkErrorCode?: Buffer;
}

export type ParsedReceipt =
  | { kind: 'final'; carrierMessageId: string; status: ReceiptStatus; carrierErrorCode?: string }
  | { kind: 'intermediate'; carrierMessageId: string }
  | { kind: 'unparseable' };

/**
 * Reads a delivery receipt from the receipted_message_id / message_state TLVs when present, else from
 * the de-facto standard text (`id:… sub:… dlvrd:… submit date:… done date:… stat:DELIVRD err:000 …`).
 * The TLV id wins: it is defined to equal the submit_sm_resp message_id, while some SMSCs print the
 * text id in decimal.
 */
export function parseReceipt(fields: ReceiptFields): ParsedReceipt {
  const text = fields.text ?? '';
  const textId = /(?:^|\s)id:(\S+)/i.exec(text)?.[1];
  const textStat = /(?:^|\s)stat:(\w+)/i.exec(text)?.[1]?.toUpperCase();
  const textErr = /(?:^|\s)err:(\w+)/i.exec(text)?.[1];
  const carrierMessageId = fields.receiptedMessageId || textId;
  if (!carrierMessageId) return { kind: 'unparseable' };

  let status: ReceiptStatus | null | undefined;
  if (fields.messageState !== undefined && fields.messageState in TLV_STATES) status = TLV_STATES[fields.messageState];
  else if (textStat !== undefined && textStat in TEXT_STATES) status = TEXT_STATES[textStat];
  else if (textStat !== undefined) status = 'unknown';
  if (status === undefined) return { kind: 'unparseable' };
  if (status === null) return { kind: 'intermediate', carrierMessageId };

  let carrierErrorCode = textErr;
  if (!carrierErrorCode && fields.networkErrorCode && fields.networkErrorCode.length >= 3) {
    carrierErrorCode = `net${fields.networkErrorCode[0]}:${fields.networkErrorCode.readUInt16BE(1)}`;
  }
  return { kind: 'final', carrierMessageId, status, ...(carrierErrorCode ? { carrierErrorCode } : {}) };
}

/** Text of a decoded short_message / message_payload (the smpp package decodes by data_coding). */
export function messageText(value: DecodedMessage | Buffer | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return undefined;
  return typeof value.message === 'string' ? value.message : undefined;
}

// --- inbound concatenation ---------------------------------------------------------------------------

interface PartialMessage {
  total: number;
  parts: (string | undefined)[];
  firstSeenAt: number;
}

/**
 * Collects the parts of concatenated inbound messages keyed by sender, recipient and reference. A message
 * whose parts do not all arrive within `ttlMs` is dropped (and logged by the caller).
 */
export class ConcatAssembler {
  private readonly partials = new Map<string, PartialMessage>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  get pending(): number {
    return this.partials.size;
  }

  /** Adds one part; returns the whole text once every part is there. */
  add(key: string, info: ConcatInfo, text: string): string | undefined {
    this.sweep();
    if (info.total <= 1) return text;
    if (info.seq < 1 || info.seq > info.total) return undefined;
    const id = `${key}|${info.ref}|${info.total}`;
    let partial = this.partials.get(id);
    if (!partial) {
      partial = { total: info.total, parts: new Array<string | undefined>(info.total).fill(undefined), firstSeenAt: this.now() };
      this.partials.set(id, partial);
    }
    partial.parts[info.seq - 1] = text;
    if (partial.parts.some((p) => p === undefined)) return undefined;
    this.partials.delete(id);
    return partial.parts.join('');
  }

  /** Drops partial messages older than the TTL; returns how many were dropped. */
  sweep(): number {
    const cutoff = this.now() - this.ttlMs;
    let dropped = 0;
    for (const [id, p] of this.partials) {
      if (p.firstSeenAt < cutoff) {
        this.partials.delete(id);
        dropped++;
      }
    }
    return dropped;
  }
}
