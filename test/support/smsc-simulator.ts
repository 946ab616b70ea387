import type { AddressInfo } from 'node:net';
import * as smpp from 'smpp';
import { concatFromUdh, concatUdh, encodeSms, type ConcatInfo } from '../../src/sms/carriers/smpp-encoding';

/**
 * An SMSC on loopback built on the smpp package's server side, for tests and benchmarks: accepts
 * bind_transceiver, answers submit_sm with message ids, sends delivery receipts (deliver_sm, esm_class
 * 0x04, the standard `id:… stat:… err:…` text plus receipted_message_id / message_state TLVs), sends MO
 * messages, records every submit_sm, and can throttle, drop the connection mid-batch, or go down.
 */

export type ReceiptOutcome = 'DELIVRD' | 'UNDELIV' | 'EXPIRED' | 'REJECTD' | 'none';

export const SMPP_STATUS = {
  ESME_ROK: 0x0000,
  ESME_RINVPASWD: 0x000e,
  ESME_RINVDSTADR: 0x000b,
  ESME_RSYSERR: 0x0008,
  ESME_RTHROTTLED: 0x0058,
} as const;

const MESSAGE_STATE: Record<Exclude<ReceiptOutcome, 'none'>, number> = { DELIVRD: 2, EXPIRED: 3, UNDELIV: 5, REJECTD: 8 };
const RECEIPT_ERR: Record<Exclude<ReceiptOutcome, 'none'>, string> = { DELIVRD: '000', EXPIRED: '000', UNDELIV: '001', REJECTD: '002' };

export interface SubmitRecord {
  sequence: number;
  source: string;
  destination: string;
  esmClass: number;
  dataCoding: number;
  registeredDelivery: number;
  /** Decoded text of this part. */
  text: string;
  concat?: ConcatInfo;
  /** Set once answered with ESME_ROK. */
  messageId?: string;
  /** command_status answered; undefined when the submit was never answered (dropped or silent). */
  status?: number;
  receivedAt: number;
}

export interface SmscSimulatorOptions {
  systemId?: string;
  password?: string;
  /** Receipt outcome by destination (digits as on the wire, or E.164). Default `defaultOutcome`. */
  outcomes?: Record<string, ReceiptOutcome>;
  defaultOutcome?: ReceiptOutcome;
  /** submit_sm answers by destination, e.g. `{ '15550001111': SMPP_STATUS.ESME_RINVDSTADR }`. */
  submitStatus?: Record<string, number>;
  receiptDelayMs?: number;
  /** Send the receipt before the submit_sm_resp (a race real SMSCs produce). */
  receiptBeforeResponse?: boolean;
  /** Include receipted_message_id / message_state TLVs besides the text (default true). */
  receiptTlvs?: boolean;
  answerEnquireLink?: boolean;
  answerSubmits?: boolean;
  /** Keep receipts whose session is gone and send them to the next session that binds (store and forward). */
  redeliverReceipts?: boolean;
}

export interface SendMoInput {
  from: string;
  to: string;
  body: string;
  /** Carry concatenation in SAR TLVs rather than a UDH. */
  sar?: boolean;
}

const digits = (address: string) => address.replace(/^\+/, '');

export class SmscSimulator {
  readonly options: SmscSimulatorOptions;
  /** Every submit_sm received, in arrival order (answered or not). */
  readonly submits: SubmitRecord[] = [];
  binds = 0;
  bindFailures = 0;
  enquireLinks = 0;
  receiptsSent = 0;
  private server?: smpp.Server;
  private listenPort = 0;
  private readonly bound = new Set<smpp.Session>();
  private readonly dropped = new WeakSet<smpp.Session>();
  /** Pending timers; a receipt's timer carries what keeps the receipt should the SMSC stop first. */
  private readonly timers = new Map<NodeJS.Timeout, (() => void) | undefined>();
  private dropCountdown?: number;
  private throttleRemaining = 0;
  private nextId = 0x10000;
  private readonly heldReceipts: { record: SubmitRecord; outcome: Exclude<ReceiptOutcome, 'none'> }[] = [];
  /** Receipts sent on a session and not answered yet (deliver_sm_resp), per session. */
  private readonly unacknowledged = new Map<smpp.Session, Set<{ record: SubmitRecord; outcome: Exclude<ReceiptOutcome, 'none'> }>>();
  private moRef = 0;

  constructor(options: SmscSimulatorOptions = {}) {
    this.options = { systemId: 'test', password: 'secret', defaultOutcome: 'DELIVRD', receiptDelayMs: 0, receiptTlvs: true, answerEnquireLink: true, answerSubmits: true, ...options };
  }

  get port(): number {
    return this.listenPort;
  }

  /** Submits answered with ESME_ROK. */
  get accepted(): SubmitRecord[] {
    return this.submits.filter((s) => s.messageId !== undefined);
  }

  get boundSessions(): number {
    return this.bound.size;
  }

  /** Listens on loopback (an ephemeral port the first time, the same port after a stop). */
  async start(): Promise<number> {
    const server = smpp.createServer({}, (session) => this.onSession(session));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, '127.0.0.1', () => resolve());
    });
    this.listenPort = (server.address() as AddressInfo).port;
    return this.listenPort;
  }

  /** Closes the listener and every session (an outage); with redeliverReceipts, receipts not sent yet are kept for the next bind. */
  async stop(): Promise<void> {
    for (const [t, keep] of this.timers) {
      clearTimeout(t);
      if (this.options.redeliverReceipts) keep?.();
    }
    this.timers.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const session of [...server.sessions]) session.destroy();
    this.bound.clear();
    await closed;
  }

  /** The n-th submit_sm from now is not answered: every session closes when it arrives. */
  dropConnectionAt(n: number): void {
    this.dropCountdown = n;
  }

  /** True while a dropConnectionAt has not happened yet. */
  get dropPending(): boolean {
    return this.dropCountdown !== undefined;
  }

  /** The next n submit_sm are answered ESME_RTHROTTLED. */
  throttleNext(n: number): void {
    this.throttleRemaining = n;
  }

  /** Sends an MO message (split into UDH- or SAR-concatenated parts when long); resolves with each deliver_sm_resp status. */
  async sendMo(input: SendMoInput): Promise<number[]> {
    const encoded = encodeSms(input.body);
    const total = encoded.parts.length;
    const ref = (this.moRef = (this.moRef + 1) % 256);
    const statuses: number[] = [];
    for (let i = 0; i < total; i++) {
      const params: Record<string, unknown> = {
        source_addr: digits(input.from),
        source_addr_ton: input.from.startsWith('+') ? 1 : 5,
        source_addr_npi: input.from.startsWith('+') ? 1 : 0,
        destination_addr: digits(input.to),
        dest_addr_ton: input.to.startsWith('+') ? 1 : 3,
        dest_addr_npi: input.to.startsWith('+') ? 1 : 0,
        data_coding: encoded.dataCoding,
        esm_class: 0,
        short_message: encoded.parts[i],
      };
      if (total > 1 && input.sar) {
        Object.assign(params, { sar_msg_ref_num: ref, sar_total_segments: total, sar_segment_seqnum: i + 1 });
      } else if (total > 1) {
        Object.assign(params, { esm_class: 0x40, short_message: Buffer.concat([concatUdh(ref, total, i + 1), encoded.parts[i]!]) });
      }
      statuses.push(await this.sendDeliverSm(params));
    }
    return statuses;
  }

  /** Sends a raw deliver_sm to the most recently bound session; resolves with the deliver_sm_resp status. */
  sendDeliverSm(params: Record<string, unknown>): Promise<number> {
    const session = [...this.bound].at(-1);
    if (!session) return Promise.reject(new Error('SMSC simulator: no bound session'));
    return new Promise((resolve, reject) => {
      const ok = session.send(new smpp.PDU('deliver_sm', params), (resp) => resolve(resp.command_status));
      if (!ok) reject(new Error('SMSC simulator: session not writable'));
    });
  }

  /** Sends enquire_link to the bound session; resolves with the response status. */
  sendEnquireLink(): Promise<number> {
    const session = [...this.bound].at(-1);
    if (!session) return Promise.reject(new Error('SMSC simulator: no bound session'));
    return new Promise((resolve) => session.send(new smpp.PDU('enquire_link', {}), (resp) => resolve(resp.command_status)));
  }

  private onSession(session: smpp.Session): void {
    session.on('error', () => undefined);
    session.on('close', () => {
      this.bound.delete(session);
      // Receipts this session never acknowledged (the ESME died or the link dropped first) are sent again
      // on the next bind, as SMSCs do with an unanswered deliver_sm.
      const unanswered = this.unacknowledged.get(session);
      this.unacknowledged.delete(session);
      if (!unanswered || !this.options.redeliverReceipts) return;
      const next = [...this.bound].at(-1);
      for (const r of unanswered) {
        if (next) this.sendReceipt(next, r.record, r.outcome);
        else this.heldReceipts.push(r);
      }
    });
    session.on('bind_transceiver', (pdu: smpp.PDU) => {
      if (this.dropped.has(session)) return;
      if (pdu.system_id !== this.options.systemId || pdu.password !== this.options.password) {
        this.bindFailures++;
        session.send(pdu.response({ command_status: SMPP_STATUS.ESME_RINVPASWD }));
        session.close();
        return;
      }
      this.binds++;
      this.bound.add(session);
      session.send(pdu.response({ system_id: 'SIMSMSC' }));
      for (const held of this.heldReceipts.splice(0)) this.sendReceipt(session, held.record, held.outcome);
    });
    session.on('submit_sm', (pdu: smpp.PDU) => this.onSubmit(session, pdu));
    session.on('enquire_link', (pdu: smpp.PDU) => {
      if (this.dropped.has(session)) return;
      this.enquireLinks++;
      if (this.options.answerEnquireLink) session.send(pdu.response());
    });
    session.on('unbind', (pdu: smpp.PDU) => {
      this.bound.delete(session);
      session.send(pdu.response());
      session.close();
    });
  }

  private onSubmit(session: smpp.Session, pdu: smpp.PDU): void {
    if (this.dropped.has(session)) return;
    const message = pdu.short_message as smpp.DecodedMessage | undefined;
    const record: SubmitRecord = {
      sequence: pdu.sequence_number,
      source: String(pdu.source_addr),
      destination: String(pdu.destination_addr),
      esmClass: Number(pdu.esm_class),
      dataCoding: Number(pdu.data_coding),
      registeredDelivery: Number(pdu.registered_delivery),
      text: typeof message?.message === 'string' ? message.message : '',
      concat: concatFromUdh(message?.udh),
      receivedAt: Date.now(),
    };
    this.submits.push(record);

    if (this.dropCountdown !== undefined && --this.dropCountdown <= 0) {
      this.dropCountdown = undefined;
      // end() flushes the responses already written, then closes: everything after this is unanswered.
      for (const s of this.bound) {
        this.dropped.add(s);
        s.close();
      }
      this.dropped.add(session);
      session.close();
      return;
    }
    if (!this.options.answerSubmits) return;

    let status: number = this.options.submitStatus?.[record.destination] ?? this.options.submitStatus?.[`+${record.destination}`] ?? SMPP_STATUS.ESME_ROK;
    if (status === SMPP_STATUS.ESME_ROK && this.throttleRemaining > 0) {
      this.throttleRemaining--;
      status = SMPP_STATUS.ESME_RTHROTTLED;
    }
    if (status !== SMPP_STATUS.ESME_ROK) {
      record.status = status;
      session.send(pdu.response({ command_status: status }));
      return;
    }

    const messageId = (this.nextId++).toString(16);
    record.messageId = messageId;
    record.status = SMPP_STATUS.ESME_ROK;
    const outcome = this.options.outcomes?.[record.destination] ?? this.options.outcomes?.[`+${record.destination}`] ?? this.options.defaultOutcome!;
    const wantsReceipt = outcome !== 'none' && (record.registeredDelivery & 0x03) !== 0;
    const response = pdu.response({ message_id: messageId });
    if (wantsReceipt && this.options.receiptBeforeResponse) {
      this.sendReceipt(session, record, outcome);
      session.send(response);
      return;
    }
    session.send(response);
    if (!wantsReceipt) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.sendReceipt(session, record, outcome);
    }, this.options.receiptDelayMs);
    this.timers.set(timer, () => this.heldReceipts.push({ record, outcome }));
  }

  private sendReceipt(session: smpp.Session, record: SubmitRecord, outcome: Exclude<ReceiptOutcome, 'none'>): void {
    if (this.dropped.has(session) || session.socket.destroyed) {
      if (this.options.redeliverReceipts) this.heldReceipts.push({ record, outcome });
      return;
    }
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(2, 12); // YYMMDDhhmm
    const dlvrd = outcome === 'DELIVRD' ? '001' : '000';
    const excerpt = record.text.replace(/[^A-Za-z0-9 ]/g, '').slice(0, 20);
    const text = `id:${record.messageId} sub:001 dlvrd:${dlvrd} submit date:${stamp} done date:${stamp} stat:${outcome} err:${RECEIPT_ERR[outcome]} text:${excerpt}`;
    const params: Record<string, unknown> = {
      source_addr: record.destination,
      source_addr_ton: 1,
      source_addr_npi: 1,
      destination_addr: record.source,
      esm_class: 0x04,
      data_coding: 0,
      short_message: Buffer.from(text, 'ascii'),
    };
    if (this.options.receiptTlvs) Object.assign(params, { receipted_message_id: record.messageId, message_state: MESSAGE_STATE[outcome] });
    this.receiptsSent++;
    const held = { record, outcome };
    const waiting = this.unacknowledged.get(session) ?? new Set();
    this.unacknowledged.set(session, waiting.add(held));
    session.send(new smpp.PDU('deliver_sm', params), (resp) => {
      waiting.delete(held);
      // An ESME that could not take it (ESME_RX_T_APPN) gets it again a little later, as SMSCs do.
      if (!this.options.redeliverReceipts || resp.command_status === SMPP_STATUS.ESME_ROK) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        const next = [...this.bound].at(-1);
        if (next) this.sendReceipt(next, record, outcome);
        else this.heldReceipts.push({ record, outcome });
      }, 500);
      this.timers.set(timer, () => this.heldReceipts.push({ record, outcome }));
    });
  }
}
