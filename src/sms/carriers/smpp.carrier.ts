import * as smpp from 'smpp';
import type { Logger } from '../../observability/logger';
import {
  CarrierError,
  type Carrier,
  type CarrierListener,
  type SubmitSmsRequest,
  type SubmitSmsResult,
} from '../carrier';
import type { SmppCarrierConfig } from '../../config/sms-carriers';
import { DeadlinePassed, systemClock, Semaphore, TokenBucket, type Clock } from './rate-limiter';
import { concatFromUdh, concatUdh, encodeSms, MAX_PARTS, type ConcatInfo } from './smpp-encoding';
import {
  classifySubmitStatus,
  ConcatAssembler,
  ESM_CLASS_UDHI,
  fromSmppAddress,
  isReceiptEsmClass,
  messageText,
  parseReceipt,
  toSmppAddress,
} from './smpp-pdu';

const ESME_ROK = 0;
/** deliver_sm_resp status asking the SMSC to redeliver later (our listener failed). */
const ESME_RX_T_APPN = 0x64;
const INTERFACE_VERSION_34 = 0x34;

export interface SmppCarrierOptions {
  config: SmppCarrierConfig;
  log: Logger;
  /** Clock for the messages-per-second limiter (tests inject one). */
  clock?: Clock;
}

/** One TCP session and the requests awaiting a response on it. */
interface Connection {
  session: smpp.Session;
  bound: boolean;
  closed: boolean;
  pending: Map<number, (err: CarrierError) => void>;
  enquireTimer?: NodeJS.Timeout;
}

/**
 * SMPP 3.4 ESME over one bind_transceiver session: submits (windowed, capped per second, long bodies as
 * UDH-concatenated parts), receives delivery receipts and MO messages as deliver_sm, keeps the link
 * alive with enquire_link and reconnects with exponential backoff. Unavailable while unbound.
 */
export class SmppCarrier implements Carrier {
  readonly name: string;
  private readonly config: SmppCarrierConfig;
  private readonly log: Logger;
  private readonly limiter: TokenBucket;
  private readonly window: Semaphore;
  private readonly assembler = new ConcatAssembler();
  private listener?: CarrierListener;
  private conn?: Connection;
  private running = false;
  private reconnectAttempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private concatRef = Math.floor(Math.random() * 256);
  private boundWaiters: (() => void)[] = [];
  private attemptWaiters: (() => void)[] = [];

  constructor(options: SmppCarrierOptions) {
    this.config = options.config;
    this.name = options.config.name;
    this.log = options.log.child({ carrier: this.name });
    const burst = options.config.burst ?? Math.max(1, Math.floor(options.config.max_mps / 10));
    this.limiter = new TokenBucket(options.config.max_mps, burst, options.clock ?? systemClock);
    this.window = new Semaphore(options.config.window);
  }

  isAvailable(): boolean {
    return this.running && this.conn?.bound === true;
  }

  /** Connects and binds; resolves after the first attempt (bound or not), never rejects: it keeps retrying. */
  async start(listener: CarrierListener): Promise<void> {
    this.listener = listener;
    if (this.running) return;
    this.running = true;
    const firstAttempt = new Promise<void>((resolve) => this.attemptWaiters.push(resolve));
    this.connect();
    await firstAttempt;
  }

  /** Resolves once bound; rejects after `timeoutMs`. */
  waitUntilBound(timeoutMs: number): Promise<void> {
    if (this.isAvailable()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.boundWaiters = this.boundWaiters.filter((w) => w !== done);
        reject(new Error(`${this.name}: not bound within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.boundWaiters.push(done);
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.reconnectTimer);
    const conn = this.conn;
    if (!conn || conn.closed) return;
    const closed = new Promise<void>((resolve) => conn.session.socket.once('close', () => resolve()));
    if (conn.bound) {
      conn.bound = false;
      await this.request(conn, 'unbind', {}, Math.min(1000, this.config.response_timeout_ms)).catch(() => undefined);
      conn.session.close();
    } else {
      conn.session.destroy();
    }
    const timer = setTimeout(() => conn.session.destroy(), 2000);
    await closed;
    clearTimeout(timer);
  }

  async submit(request: SubmitSmsRequest): Promise<SubmitSmsResult> {
    if (!this.isAvailable()) throw this.unavailable('not bound');
    const encoded = encodeSms(request.body);
    const total = encoded.parts.length;
    if (total > MAX_PARTS) {
      throw new CarrierError(`Body needs ${total} parts; at most ${MAX_PARTS}`, this.name, 'body_too_long', false);
    }
    // A resumed submit keeps the reference of its accepted parts and sends only the rest.
    const resume = request.resume?.carrier === this.name ? request.resume : undefined;
    const ref = total > 1 ? (resume?.concatRef ?? this.nextConcatRef()) : 0;
    const source = toSmppAddress(request.from);
    const destination = toSmppAddress(request.to);
    const registeredDelivery = request.requestReceipt && this.config.registered_delivery && !this.config.no_receipts ? 1 : 0;
    const ids: string[] = [...(resume?.acceptedIds ?? [])].slice(0, total);
    // Parts go one after another: some SMSCs need them in order, and a failed part stops the rest.
    for (let i = ids.length; i < total; i++) {
      const payload = total > 1 ? Buffer.concat([concatUdh(ref, total, i + 1), encoded.parts[i]!]) : encoded.parts[i]!;
      let id: string;
      try {
        id = await this.submitPart(request.deadline, {
          service_type: '',
          source_addr_ton: source.ton,
          source_addr_npi: source.npi,
          source_addr: source.addr,
          dest_addr_ton: destination.ton,
          dest_addr_npi: destination.npi,
          destination_addr: destination.addr,
          esm_class: total > 1 ? ESM_CLASS_UDHI : 0,
          registered_delivery: registeredDelivery,
          data_coding: encoded.dataCoding,
          short_message: payload,
        });
      } catch (err) {
        const failure = err as CarrierError;
        // What left us: the parts accepted so far, and whether this part may have been accepted too.
        const sent = failure.progress.sent === 'unknown' ? 'unknown' : ids.length > 0 ? 'partial' : 'none';
        throw new CarrierError(failure.message, this.name, failure.code, failure.retryable, { sent, acceptedIds: ids, concatRef: total > 1 ? ref : null });
      }
      ids.push(id);
    }
    this.log.debug({ messageId: request.messageId, carrierMessageIds: ids, parts: total }, 'SMS submitted');
    return { carrier: this.name, carrierMessageIds: ids, ...(this.config.no_receipts ? { noReceipts: true } : {}) };
  }

  private async submitPart(deadline: number | undefined, params: Record<string, unknown>): Promise<string> {
    // Queued past the caller's deadline (it may have failed over meanwhile): this part never leaves.
    const late = () => new CarrierError(`${this.name}: queued past its deadline, not sent`, this.name, 'carrier_timeout', true);
    await this.limiter.take();
    const release = await this.window.acquire(deadline).catch((err: unknown) => {
      throw err instanceof DeadlinePassed ? late() : err;
    });
    try {
      if (deadline !== undefined && Date.now() > deadline) throw late();
      const conn = this.conn;
      if (!conn?.bound || !this.running) throw this.unavailable('not bound');
      const resp = await this.request(conn, 'submit_sm', params);
      if (resp.command_status === ESME_ROK) return String(resp.message_id);
      const failure = classifySubmitStatus(resp.command_status);
      if (failure.code === 'carrier_throttled') this.limiter.drain();
      throw new CarrierError(`submit_sm refused with ${failure.status}`, this.name, failure.code, failure.retryable);
    } finally {
      release();
    }
  }

  // --- connection lifecycle ----------------------------------------------------------------------------

  private connect(): void {
    if (!this.running) return;
    const session = smpp.connect({ host: this.config.host, port: this.config.port, tls: this.config.tls });
    const conn: Connection = { session, bound: false, closed: false, pending: new Map() };
    this.conn = conn;
    const bindTimer = setTimeout(() => {
      this.log.warn({ host: this.config.host, port: this.config.port }, 'SMPP connect/bind timed out');
      session.destroy();
    }, this.config.response_timeout_ms);

    session.on('connect', () => {
      this.request(conn, 'bind_transceiver', {
        system_id: this.config.system_id,
        password: this.config.password,
        system_type: this.config.system_type,
        interface_version: INTERFACE_VERSION_34,
      })
        .then((resp) => {
          clearTimeout(bindTimer);
          if (resp.command_status !== ESME_ROK) {
            this.log.error({ status: classifySubmitStatus(resp.command_status).status }, 'SMPP bind refused');
            session.destroy();
            return;
          }
          this.onBound(conn);
        })
        .catch(() => session.destroy());
    });
    session.on('error', (err: Error) => this.log.warn({ err: err.message }, 'SMPP connection error'));
    session.on('close', () => {
      clearTimeout(bindTimer);
      this.onClosed(conn);
    });
    session.on('deliver_sm', (pdu: smpp.PDU) => void this.onDeliverSm(conn, pdu));
    session.on('enquire_link', (pdu: smpp.PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: smpp.PDU) => {
      this.log.warn('SMSC unbound the session');
      conn.bound = false;
      session.send(pdu.response());
      session.close();
    });
  }

  private onBound(conn: Connection): void {
    if (conn.closed) return;
    conn.bound = true;
    this.reconnectAttempt = 0;
    this.log.info({ host: this.config.host, port: this.config.port }, 'SMPP bound (transceiver)');
    conn.enquireTimer = setInterval(() => {
      this.request(conn, 'enquire_link', {}).catch(() => {
        this.log.warn('enquire_link unanswered; reconnecting');
        conn.session.destroy();
      });
    }, this.config.enquire_link_ms);
    for (const w of this.boundWaiters.splice(0)) w();
    for (const w of this.attemptWaiters.splice(0)) w();
  }

  private onClosed(conn: Connection): void {
    if (conn.closed) return;
    const wasBound = conn.bound;
    conn.closed = true;
    conn.bound = false;
    clearInterval(conn.enquireTimer);
    const lost = this.unavailable('connection lost before the response', 'unknown');
    for (const reject of conn.pending.values()) reject(lost);
    conn.pending.clear();
    for (const w of this.attemptWaiters.splice(0)) w();
    if (this.conn !== conn || !this.running) return;
    if (wasBound) this.log.warn('SMPP connection lost');
    const base = Math.min(this.config.reconnect_max_ms, this.config.reconnect_min_ms * 2 ** this.reconnectAttempt);
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    this.reconnectAttempt++;
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** Sends a request PDU; resolves with its response, rejects retryably on timeout or connection loss. */
  private request(conn: Connection, command: string, params: Record<string, unknown>, timeoutMs = this.config.response_timeout_ms): Promise<smpp.PDU> {
    return new Promise((resolve, reject) => {
      if (conn.closed) return reject(this.unavailable('connection closed'));
      const pdu = new smpp.PDU(command, params);
      let timer: NodeJS.Timeout | undefined;
      const sent = conn.session.send(pdu, (resp) => {
        clearTimeout(timer);
        conn.pending.delete(pdu.sequence_number);
        resolve(resp);
      });
      if (!sent) return reject(this.unavailable('socket not writable'));
      const seq = pdu.sequence_number;
      conn.pending.set(seq, (err) => {
        clearTimeout(timer);
        reject(err);
      });
      timer = setTimeout(() => {
        conn.pending.delete(seq);
        reject(new CarrierError(`No ${command}_resp within ${timeoutMs} ms`, this.name, 'carrier_timeout', true, { sent: 'unknown', acceptedIds: [], concatRef: null }));
      }, timeoutMs);
    });
  }

  // --- inbound PDUs -------------------------------------------------------------------------------------

  private async onDeliverSm(conn: Connection, pdu: smpp.PDU): Promise<void> {
    let status = ESME_ROK;
    try {
      if (isReceiptEsmClass(Number(pdu.esm_class ?? 0))) await this.handleReceipt(pdu);
      else await this.handleInbound(pdu);
    } catch (err) {
      // Not acknowledged: the SMSC delivers it again later.
      this.log.error({ err }, 'deliver_sm handling failed; asking the SMSC to retry');
      status = ESME_RX_T_APPN;
    }
    if (!conn.closed) conn.session.send(pdu.response(status === ESME_ROK ? {} : { command_status: status }));
  }

  private async handleReceipt(pdu: smpp.PDU): Promise<void> {
    const parsed = parseReceipt({
      text: messageText(pdu.short_message as never) || messageText(pdu.message_payload as never),
      receiptedMessageId: typeof pdu.receipted_message_id === 'string' ? pdu.receipted_message_id : undefined,
      messageState: typeof pdu.message_state === 'number' ? pdu.message_state : undefined,
      networkErrorCode: Buffer.isBuffer(pdu.network_error_code) ? pdu.network_error_code : undefined,
    });
    if (parsed.kind === 'unparseable') {
      this.log.warn('Unparseable delivery receipt ignored');
      return;
    }
    if (parsed.kind === 'intermediate') return;
    await this.listener?.onReceipt({
      carrier: this.name,
      carrierMessageId: parsed.carrierMessageId,
      handset: fromSmppAddress(String(pdu.source_addr ?? ''), Number(pdu.source_addr_ton ?? 0)),
      status: parsed.status,
      ...(parsed.carrierErrorCode ? { carrierErrorCode: parsed.carrierErrorCode } : {}),
      at: new Date(),
    });
  }

  private async handleInbound(pdu: smpp.PDU): Promise<void> {
    const short = pdu.short_message as smpp.DecodedMessage | undefined;
    const payload = pdu.message_payload as smpp.DecodedMessage | undefined;
    const decoded = short && (short.udh?.length || messageText(short)) ? short : (payload ?? short);
    const text = messageText(decoded);
    if (text === undefined) {
      this.log.warn({ dataCoding: pdu.data_coding }, 'Inbound message with a binary body ignored');
      return;
    }
    const from = fromSmppAddress(String(pdu.source_addr ?? ''), Number(pdu.source_addr_ton ?? 0));
    const to = fromSmppAddress(String(pdu.destination_addr ?? ''), Number(pdu.dest_addr_ton ?? 0));
    const concat: ConcatInfo | undefined =
      concatFromUdh(decoded?.udh) ??
      (typeof pdu.sar_msg_ref_num === 'number' && typeof pdu.sar_total_segments === 'number' && typeof pdu.sar_segment_seqnum === 'number'
        ? { ref: pdu.sar_msg_ref_num, total: pdu.sar_total_segments, seq: pdu.sar_segment_seqnum }
        : undefined);
    const body = concat ? this.assembler.add(`${from}|${to}`, concat, text) : text;
    if (body === undefined) return; // more parts to come
    await this.listener?.onInbound({ carrier: this.name, from, to, body, receivedAt: new Date() });
  }

  // --- helpers ------------------------------------------------------------------------------------------

  private nextConcatRef(): number {
    this.concatRef = (this.concatRef + 1) % 256;
    return this.concatRef;
  }

  /** A retryable failure; `sent: 'unknown'` when the request had been written to the socket. */
  private unavailable(why: string, sent: 'none' | 'unknown' = 'none'): CarrierError {
    return new CarrierError(`${this.name}: ${why}`, this.name, 'carrier_unavailable', true, { sent, acceptedIds: [], concatRef: null });
  }
}
