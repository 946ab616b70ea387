/**
 * Minimal types for the `smpp` package (0.5.x ships none): only what the SMPP carrier and the SMSC
 * simulator use. PDU fields are read by name; unknown fields stay `unknown`.
 */
declare module 'smpp' {
  import { EventEmitter } from 'node:events';
  import { Server as NetServer, Socket } from 'node:net';

  /** `short_message` / `message_payload` after the package's decode filter. */
  export interface DecodedMessage {
    /** Information elements of the UDH, each `[iei, length, ...data]`. */
    udh?: Buffer[];
    /** Decoded text, or the raw bytes when the data_coding is unknown to the package. */
    message: string | Buffer;
  }

  export class PDU {
    constructor(command: string, options?: Record<string, unknown>);
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): PDU;
    [field: string]: unknown;
  }

  export interface SessionOptions {
    host?: string;
    port?: number;
    tls?: boolean;
    url?: string;
    socket?: Socket;
    auto_enquire_link_period?: number;
  }

  export class Session extends EventEmitter {
    constructor(options: SessionOptions);
    socket: Socket;
    server?: Server;
    send(pdu: PDU, responseCallback?: (pdu: PDU) => void, sendCallback?: (pdu: PDU) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
    /** Shortcuts named after every command (`submit_sm`, `deliver_sm`, `enquire_link`, `unbind`, …). */
    [command: string]: unknown;
  }

  export class Server extends NetServer {
    sessions: Session[];
  }

  export function connect(options: SessionOptions, listener?: () => void): Session;
  export function createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server;
  export function createServer(listener?: (session: Session) => void): Server;

  export const errors: Record<string, number>;
  export const consts: {
    ESM_CLASS: Record<string, number>;
    ENCODING: Record<string, number>;
    REGISTERED_DELIVERY: Record<string, number>;
    MESSAGE_STATE: Record<string, number>;
    TON: Record<string, number>;
    NPI: Record<string, number>;
    [name: string]: unknown;
  };
}
