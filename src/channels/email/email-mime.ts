import { simpleParser, type AddressObject } from 'mailparser';
import { newTextOfReply, parseMessageIds } from './email-threading';

/** One recipient's outcome in a delivery status notification (RFC 3464). */
export interface DeliveryStatusRecipient {
  recipient: string;
  /** failed, delayed, delivered, relayed, expanded. */
  action: string;
  /** Enhanced status code (RFC 3463), e.g. 5.1.1. */
  status: string;
  diagnostic: string | null;
}

export type InboundEmailReport =
  | { type: 'delivery_status'; originalMessageId: string | null; recipients: DeliveryStatusRecipient[] }
  | { type: 'feedback'; originalMessageId: string | null; feedbackType: string; userAgent: string | null };

/** What the channel needs of an inbound email, parsed from its raw MIME. */
export interface InboundEmail {
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  subject: string;
  from: { address: string; name: string } | null;
  /** Where it was delivered, most specific first: Delivered-To, X-Original-To, To, Cc. */
  recipients: string[];
  /** The customer's new text (quoted history removed). */
  text: string;
  /** Auto-Submitted other than "no", or Precedence bulk/junk/list: no agent answers it. */
  automated: boolean;
  /** A multipart/report: a delivery status notification (bounce) or a feedback report (complaint). */
  report: InboundEmailReport | null;
  attachments: { filename: string | null; contentType: string; size: number }[];
}

const addresses = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((a) => a.value.flatMap((v) => (v.address ? [v.address] : (v.group ?? []).flatMap((g) => (g.address ? [g.address] : [])))));

/**
 * The addresses in the raw header lines named `key`: each run of characters between separators that has
 * an "@" with something either side. Split, not a backtracking regex, so a long header costs linear time.
 */
const headerAddresses = (lines: readonly { key: string; line: string }[], key: string): string[] =>
  lines
    .filter((l) => l.key === key)
    .flatMap((l) => l.line.slice(l.line.indexOf(':') + 1).split(/[\s<>,;:"]+/))
    .filter((token) => token.slice(1, -1).includes('@'));

export async function parseInboundEmail(raw: Buffer): Promise<InboundEmail> {
  const mail = await simpleParser(raw, { skipHtmlToText: false, skipTextToHtml: true, skipImageLinks: true });
  const header = (name: string) => {
    const v = mail.headers.get(name);
    return typeof v === 'string' ? v : undefined;
  };
  const contentType = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const report = contentType?.value?.toLowerCase() === 'multipart/report' ? parseReport(raw, contentType.params ?? {}) : null;
  const autoSubmitted = (header('auto-submitted') ?? 'no').trim().toLowerCase();
  const precedence = (header('precedence') ?? '').trim().toLowerCase();
  const from = mail.from?.value[0];
  const recipients = [
    ...headerAddresses(mail.headerLines, 'delivered-to'),
    ...headerAddresses(mail.headerLines, 'x-original-to'),
    ...addresses(mail.to),
    ...addresses(mail.cc),
  ];
  return {
    messageId: parseMessageIds(mail.messageId)[0] ?? null,
    inReplyTo: parseMessageIds(mail.inReplyTo)[0] ?? null,
    references: parseMessageIds(mail.references),
    subject: (mail.subject ?? '').replace(/[\r\n]+/g, ' ').trim(),
    from: from?.address ? { address: from.address, name: from.name ?? '' } : null,
    recipients: [...new Set(recipients.map((r) => r.toLowerCase()))],
    text: report ? '' : newTextOfReply(mail.text ?? ''),
    automated: autoSubmitted !== 'no' || ['bulk', 'junk', 'list'].includes(precedence),
    report,
    attachments: mail.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, size: a.size })),
  };
}

interface MimePart {
  contentType: string;
  body: string;
}

/**
 * The parts of a multipart/report (RFC 6522): the machine-readable one (message/delivery-status or
 * message/feedback-report) and the returned original (message/rfc822 or text/rfc822-headers), read
 * directly because mailparser folds report parts into the text body.
 */
function parseReport(raw: Buffer, params: Record<string, string>): InboundEmailReport | null {
  const boundary = params.boundary;
  if (!boundary) return null;
  const parts = splitMultipart(raw.toString('utf8'), boundary);
  const original = parts.find((p) => p.contentType === 'message/rfc822' || p.contentType === 'text/rfc822-headers' || p.contentType === 'message/rfc822-headers');
  const originalHeaders = original ? parseFieldBlocks(original.body)[0] ?? new Map<string, string>() : new Map<string, string>();
  const originalMessageId = parseMessageIds(originalHeaders.get('message-id'))[0] ?? null;
  const reportType = (params['report-type'] ?? '').toLowerCase();
  if (reportType === 'delivery-status') {
    const part = parts.find((p) => p.contentType === 'message/delivery-status' || p.contentType === 'message/global-delivery-status');
    if (!part) return null;
    const [, ...perRecipient] = parseFieldBlocks(part.body);
    const recipients = perRecipient
      .filter((f) => f.has('final-recipient') || f.has('original-recipient'))
      .map((f) => ({
        recipient: stripAddressType(f.get('final-recipient') ?? f.get('original-recipient')!),
        action: (f.get('action') ?? '').toLowerCase(),
        status: (f.get('status') ?? '').split(/\s/)[0] ?? '',
        diagnostic: f.get('diagnostic-code') ?? null,
      }));
    return { type: 'delivery_status', originalMessageId, recipients };
  }
  if (reportType === 'feedback-report') {
    const part = parts.find((p) => p.contentType === 'message/feedback-report');
    if (!part) return null;
    const fields = parseFieldBlocks(part.body)[0] ?? new Map<string, string>();
    return { type: 'feedback', originalMessageId, feedbackType: (fields.get('feedback-type') ?? 'abuse').toLowerCase(), userAgent: fields.get('user-agent') ?? null };
  }
  return null;
}

const stripAddressType = (v: string) => v.replace(/^[a-z0-9-]+\s*;\s*/i, '').trim().replace(/^<|>$/g, '');

/** The top-level parts of a multipart body, with their content type and decoded body text. */
export function splitMultipart(source: string, boundary: string): MimePart[] {
  const text = source.replace(/\r\n/g, '\n');
  const start = text.indexOf('\n\n');
  const body = start >= 0 ? text.slice(start + 2) : text;
  const delimiter = `--${boundary}`;
  const chunks = `\n${body}`.split(`\n${delimiter}`);
  const parts: MimePart[] = [];
  for (const chunk of chunks.slice(1)) {
    if (chunk.startsWith('--')) break;
    const content = chunk.replace(/^[ \t]*\n/, '');
    const split = content.indexOf('\n\n');
    const headerText = split >= 0 ? content.slice(0, split) : content;
    const partBody = split >= 0 ? content.slice(split + 2) : '';
    const headers = parseFieldBlocks(headerText)[0] ?? new Map<string, string>();
    const contentType = (headers.get('content-type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
    const encoding = (headers.get('content-transfer-encoding') ?? '7bit').trim().toLowerCase();
    parts.push({ contentType, body: decodeTransfer(partBody, encoding) });
  }
  return parts;
}

function decodeTransfer(body: string, encoding: string): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/**
 * Header-style field blocks separated by blank lines (a delivery-status body is one per-message block then
 * one block per recipient). Folded lines are unfolded; names are lower-cased; the first value wins.
 */
export function parseFieldBlocks(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let last: string | undefined;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      if (current.size > 0) blocks.push(current);
      current = new Map();
      last = undefined;
      continue;
    }
    if (/^[ \t]/.test(line) && last) {
      current.set(last, `${current.get(last)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!current.has(name)) {
      current.set(name, line.slice(colon + 1).trim());
      last = name;
    } else last = undefined;
  }
  if (current.size > 0) blocks.push(current);
  return blocks;
}
