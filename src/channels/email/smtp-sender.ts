import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';

export interface OutgoingEmail {
  from: { address: string; name?: string | null };
  to: string;
  subject: string;
  /** Without angle brackets. */
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  text: string;
  html: string;
  /** Extra headers (Auto-Submitted on agent replies). */
  headers?: Record<string, string>;
  /** The envelope sender (MAIL FROM): the email's own return path, where its bounces go. */
  returnPath?: string;
  /** Signs the message (DKIM-Signature) with the sending domain's key. */
  dkim?: { domainName: string; keySelector: string; privateKey: string };
}

/**
 * How the SMTP server answered: `accepted` (250 to the DATA: email.delivered); `rejected` (a 5xx: permanent,
 * retrying cannot help: email.bounced); `deferred` (4xx, connection or TLS failure, timeout: try again).
 */
export type SmtpOutcome =
  | { outcome: 'accepted'; response: string }
  | { outcome: 'rejected'; responseCode: number; response: string }
  | { outcome: 'deferred'; response: string };

export interface SmtpSenderPort {
  send(mail: OutgoingEmail): Promise<SmtpOutcome>;
  close(): void;
}

/** Sends over SMTP with nodemailer (one transport per process, a connection per send). */
export class SmtpSender implements SmtpSenderPort {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;

  constructor(options: { host: string; port: number; secure: boolean; user?: string; password?: string; timeoutMs: number; allowSelfSigned?: boolean }) {
    this.transport = nodemailer.createTransport({
      host: options.host,
      port: options.port,
      secure: options.secure,
      auth: options.user ? { user: options.user, pass: options.password ?? '' } : undefined,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
      tls: options.allowSelfSigned ? { rejectUnauthorized: false } : undefined,
    });
  }

  async send(mail: OutgoingEmail): Promise<SmtpOutcome> {
    try {
      const info = await this.transport.sendMail({
        from: mail.from.name ? { name: mail.from.name, address: mail.from.address } : mail.from.address,
        to: mail.to,
        subject: mail.subject,
        messageId: `<${mail.messageId}>`,
        inReplyTo: mail.inReplyTo ? `<${mail.inReplyTo}>` : undefined,
        references: mail.references?.map((id) => `<${id}>`),
        text: mail.text,
        html: mail.html,
        headers: mail.headers,
        ...(mail.returnPath ? { envelope: { from: mail.returnPath, to: mail.to } } : {}),
        ...(mail.dkim ? { dkim: mail.dkim } : {}),
      });
      if (info.rejected.length > 0) return { outcome: 'rejected', responseCode: 550, response: info.response };
      return { outcome: 'accepted', response: info.response };
    } catch (err) {
      const e = err as { responseCode?: number; response?: string; message?: string; rejectedErrors?: { responseCode?: number; response?: string }[] };
      const code = e.responseCode ?? e.rejectedErrors?.[0]?.responseCode;
      const response = e.response ?? e.rejectedErrors?.[0]?.response ?? e.message ?? String(err);
      if (code !== undefined && code >= 500 && code < 600) return { outcome: 'rejected', responseCode: code, response };
      return { outcome: 'deferred', response };
    }
  }

  close(): void {
    this.transport.close();
  }
}
