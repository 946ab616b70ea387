import { randomBytes } from 'node:crypto';

export interface DeliveryStatusReport {
  /** Where the report is sent (a bounce is accepted only at the return path of the email it reports). */
  to: string;
  /** The recipient the email could not reach (Final-Recipient). */
  recipient: string;
  /** The enhanced status code, e.g. 5.1.1. */
  status: string;
  /** The reported email's headers as the report quotes them. */
  original: { messageId: string; from?: string; to?: string };
  diagnosticCode?: string;
  /** The human-readable first part, when the report has one. */
  explanation?: string;
  /** Marks the report Auto-Submitted: auto-replied (RFC 3834), as most relays do. */
  autoSubmitted?: boolean;
}

/**
 * A failed-delivery report (RFC 3464 multipart/report) from the customer's mail server, as raw MIME with
 * CRLF line ends, for the inbound email endpoint.
 */
export function deliveryStatusReport(r: DeliveryStatusReport): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.customer.test>',
    `To: ${r.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <dsn-${randomBytes(6).toString('hex')}@mx.customer.test>`,
    ...(r.autoSubmitted ? ['Auto-Submitted: auto-replied'] : []),
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="RPT"',
    '',
    ...(r.explanation !== undefined ? ['--RPT', 'Content-Type: text/plain; charset=us-ascii', '', r.explanation, ''] : []),
    '--RPT',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.customer.test',
    '',
    `Final-Recipient: rfc822; ${r.recipient}`,
    'Action: failed',
    `Status: ${r.status}`,
    ...(r.diagnosticCode ? [`Diagnostic-Code: ${r.diagnosticCode}`] : []),
    '',
    '--RPT',
    'Content-Type: text/rfc822-headers',
    '',
    ...(r.original.from ? [`From: ${r.original.from}`] : []),
    ...(r.original.to ? [`To: ${r.original.to}`] : []),
    `Message-ID: ${r.original.messageId}`,
    '',
    '--RPT--',
    '',
  ].join('\r\n');
}
