import { randomBytes } from 'node:crypto';
import type { ConversationEventsNotifier } from '../../conversations/conversation-events.notifier';
import type { InboxService } from '../../conversations/inbox.service';
import type { Logger } from '../../observability/logger';
import type { SmtpSenderPort } from './smtp-sender';
import { escapeHtml } from '../../platform/html';

/** At most one team email per conversation in this long. */
export const TEAM_ALERT_INTERVAL_MS = 5 * 60_000;

/**
 * Emails the team when a conversation needs a person (a handoff; a customer message while a person holds
 * it), when SMTP is configured: heard through the conversation events notifier (every API process hears
 * every change; the conversation row's `team_alerted_at` lets one of them send, at most once per 5
 * minutes per conversation). The email is automatic (`Auto-Submitted: auto-generated`, RFC 3834) and
 * links to the conversation in the console; it quotes the last message's first 200 characters (redacted).
 */
export class TeamAlerts {
  private off?: () => void;
  private readonly pending = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: { notifier: ConversationEventsNotifier; inbox: InboxService; sender: SmtpSenderPort; from: string; messageIdDomain: string; publicBaseUrl: string; log: Logger; intervalMs?: number }) {}

  start(): void {
    this.off ??= this.deps.notifier.onAnyConversation((id) => {
      if (id === '') return;
      this.pending.add(id);
      this.timer ??= setTimeout(() => void this.flush(), 200);
    });
  }

  stop(): void {
    this.off?.();
    this.off = undefined;
    clearTimeout(this.timer);
  }

  private async flush() {
    this.timer = undefined;
    const ids = [...this.pending];
    this.pending.clear();
    for (const id of ids) {
      try {
        await this.alert(id);
      } catch (err) {
        this.deps.log.warn({ err, conversationId: id }, 'Team alert email not sent');
      }
    }
  }

  private async alert(conversationId: string) {
    const claimed = await this.deps.inbox.claimTeamAlert(conversationId, this.deps.intervalMs ?? TEAM_ALERT_INTERVAL_MS);
    if (!claimed) return;
    const c = claimed.conversation;
    const k = c.customer as Record<string, unknown>;
    const who = String(k.name ?? k.email ?? k.phone ?? `A ${c.channel} customer`);
    const url = `${this.deps.publicBaseUrl.replace(/\/$/, '')}/console/inbox/${c.id}`;
    const text = `${who} is waiting for a person (${c.channel}).\n\n${c.last_message_preview ?? ''}\n\nOpen the conversation: ${url}\n`;
    for (const to of claimed.to) {
      const sent = await this.deps.sender.send({
        from: { address: this.deps.from, name: 'Converse inbox' },
        to,
        subject: `${who} is waiting in the inbox`,
        messageId: `alert.${c.id}.${randomBytes(6).toString('hex')}@${this.deps.messageIdDomain}`,
        text,
        html: `<p>${escapeHtml(who)} is waiting for a person (${c.channel}).</p><blockquote>${escapeHtml(c.last_message_preview ?? '')}</blockquote><p><a href="${escapeHtml(url)}">Open the conversation</a></p>`,
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      if (sent.outcome !== 'accepted') this.deps.log.warn({ conversationId: c.id, outcome: sent.outcome }, 'Team alert email not accepted');
    }
  }
}
