import { z } from 'zod';
import { bool } from './env-values';

/** A name server as node's resolver takes it: an IPv4 address or a bare IPv6 one, or either with a port (`1.2.3.4:53`, `[::1]:53`). */
const DNS_SERVER = /^(?:(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?)$/;

/** Outbound SMTP (absent when SMTP_HOST is unset). */
export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  timeoutMs: number;
}

/** Email channel: outbound SMTP, our addresses and Message-IDs, the inbound hook, engagement tracking. */
export const emailConfig = z
  .object({
    /** The SMTP server replies are handed to (unset: email replies are recorded as failed, not sent). */
    SMTP_HOST: z.string().min(1).optional(),
    SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
    /** Implicit TLS from the first byte (port 465); false uses STARTTLS when the server offers it. */
    SMTP_SECURE: bool.default(false),
    SMTP_USER: z.string().optional(),
    SMTP_PASSWORD: z.string().optional(),
    /** Connection, greeting and socket timeouts of one SMTP send. */
    SMTP_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    /** From address of replies on conversations that came in on no registered address; its domain names our Message-IDs. */
    EMAIL_FROM: z.string().email().default('agent@converse.localhost'),
    /** Domain of the Message-IDs we write (default: EMAIL_FROM's domain). */
    EMAIL_MESSAGE_ID_DOMAIN: z.string().regex(/^[A-Za-z0-9.-]+$/).optional(),
    /** Secret the mail relay signs inbound hook posts with (Service-Signature); unset: the hook refuses every post. */
    EMAIL_INBOUND_SECRET: z.string().min(16).optional(),
    EMAIL_INBOUND_MAX_BYTES: z.coerce.number().int().positive().default(10_000_000),
    /** Engagement tracking: an open pixel, and links rewritten through the click redirect. */
    EMAIL_TRACK_OPENS: bool.default(false),
    EMAIL_TRACK_CLICKS: bool.default(false),
    /**
     * DNS servers the domain proofs (TXT records) are looked up on, comma-separated `host` or `host:port`
     * (IPv6 in brackets with a port); unset: the system's resolvers.
     */
    EMAIL_DNS_SERVERS: z
      .string()
      .optional()
      .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean))
      .refine((servers) => servers.every((s) => DNS_SERVER.test(s)), 'a comma-separated list of IP addresses, each optionally with :port (IPv6 in brackets then)'),
    /** Timeout of one DNS query of a domain proof (each server is tried twice). */
    EMAIL_DNS_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    /**
     * Domain of the per-email return paths (VERP, `bounces+<token>@…`): the relay must deliver mail for it
     * to the inbound hook, since bounces are accepted only there. Default: the Message-ID domain.
     */
    EMAIL_RETURN_PATH_DOMAIN: z.string().regex(/^[A-Za-z0-9.-]+$/).optional(),
  })
  .transform((e) => ({
    email: {
      /** Undefined: no SMTP server configured (replies are recorded as failed). */
      smtp: e.SMTP_HOST
        ? ({ host: e.SMTP_HOST, port: e.SMTP_PORT, secure: e.SMTP_SECURE, user: e.SMTP_USER || undefined, password: e.SMTP_PASSWORD || undefined, timeoutMs: e.SMTP_TIMEOUT_MS } satisfies SmtpConfig as SmtpConfig)
        : undefined,
      from: e.EMAIL_FROM,
      messageIdDomain: e.EMAIL_MESSAGE_ID_DOMAIN ?? e.EMAIL_FROM.split('@')[1]!,
      inboundSecret: (e.EMAIL_INBOUND_SECRET || undefined) as string | undefined,
      inboundMaxBytes: e.EMAIL_INBOUND_MAX_BYTES,
      trackOpens: e.EMAIL_TRACK_OPENS,
      trackClicks: e.EMAIL_TRACK_CLICKS,
      dnsServers: e.EMAIL_DNS_SERVERS,
      dnsTimeoutMs: e.EMAIL_DNS_TIMEOUT_MS,
      returnPathDomain: (e.EMAIL_RETURN_PATH_DOMAIN ?? e.EMAIL_MESSAGE_ID_DOMAIN ?? e.EMAIL_FROM.split('@')[1]!).toLowerCase(),
    },
  }));
