import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { AccountsService } from '../accounts/accounts.service';
import { PublishableKeysService } from '../widget/publishable-keys.service';
import { VisitorIdentityService } from '../widget/visitor-identity.service';
import { WidgetSettingsService } from '../widget/widget-settings.service';
import { ConversationRepo } from '../conversations/conversation.repo';
import { AgentsService } from '../agents/agents.service';
import { createPlanner } from '../agents/planner/factory';
import { ConversationsService } from '../conversations/conversations.service';
import { VisitorConversationsService } from '../conversations/visitor-conversations.service';
import { ConversationEventsNotifier } from '../conversations/conversation-events.notifier';
import { ConversationStreamService } from '../conversations/conversation-stream.service';
import { ReplyChannels } from '../conversations/reply-channels';
import { QueuesService } from '../conversations/queues.service';
import { InboxService } from '../conversations/inbox.service';
import { TeamAlerts } from '../channels/email/team-alerts';
import { InboxStreamService } from '../conversations/inbox-stream.service';
import { ConversationNotesService } from '../conversations/conversation-notes.service';
import { SavedRepliesService } from '../conversations/saved-replies.service';
import { createVoiceReplyChannel } from '../channels/voice/voice-reply-channel';
import { VoiceCallsService } from '../channels/voice/voice-calls.service';
import { CallsService } from '../channels/voice/calls.service';
import { TestHelpersService } from '../test-helpers/test-helpers.service';
import { EmailAddressesService } from '../channels/email/email-addresses.service';
import { createTxtLookup, EmailDomainsService, type TxtLookup } from '../channels/email/email-domains.service';
import { EmailsService } from '../channels/email/emails.service';
import { EmailReplyChannel } from '../channels/email/email-reply-channel';
import { EmailTrackingService } from '../channels/email/email-tracking.service';
import { InboundEmailService } from '../channels/email/inbound-email.service';
import { SmtpSender, type SmtpSenderPort } from '../channels/email/smtp-sender';
import { RunNotifier } from '../runs/run-notifier';
import { RunStepsService } from '../runs/run-steps.service';
import { RunsService } from '../runs/runs.service';
import { EventsService } from '../webhooks/events.service';
import { createKnowledgeServices } from '../knowledge/knowledge-services';
import type { SmsCarriers } from '../sms/carrier';
import { SmsInboundAdapter } from '../channels/sms/sms-inbound.adapter';
import { SmsReplyChannel } from '../channels/sms/sms-reply.channel';
import { ShortLinksService } from '../links/short-links.service';
import { CitationPagesService } from '../knowledge/citation-pages.service';
import { InboundSmsService } from '../sms/inbound-sms.service';
import { MessageDeliveryService } from '../sms/message-delivery.service';
import { MessageRoundSender } from '../sms/message-round.service';
import { ReceiptFolder } from '../sms/receipt-fold';
import { MessagesService } from '../sms/messages.service';
import { MessageBatchesService } from '../sms/message-batches.service';
import { PhoneNumbersService } from '../numbers/phone-numbers.service';
import { SendersService } from '../numbers/senders.service';
import { VerificationsService } from '../verifications/verifications.service';
import { WebhookDeliveryService } from '../webhooks/webhook-delivery.service';
import { WebhookEndpointsService } from '../webhooks/webhook-endpoints.service';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher';
import { DEFAULT_SMS_DISPATCH, SmsDispatcher } from '../sms/sms-dispatcher';
import { ConsoleSessionsService } from '../console/console-sessions.service';
import { TeammatesService } from '../console/teammates.service';
import { DeclaredToolAnswers } from '../evaluations/declared-tool-answers';
import { EvaluationCaseRunner } from '../evaluations/evaluation-case-runner';
import { EvaluationPublishGate } from '../evaluations/evaluation-publish-gate';
import { EvaluationsService } from '../evaluations/evaluations.service';
import { TestCasesService } from '../evaluations/test-cases.service';
import { AnalyticsService } from '../analytics/analytics.service';
import { FeedbackService } from '../analytics/feedback.service';
import { RollupService } from '../analytics/rollup.service';
import { DemoTraffic } from '../demo/demo-traffic';

export interface ServiceDeps {
  config: Config;
  db: Kysely<DB>;
  workflows: WorkflowGateway;
  log: Logger;
  metrics?: Metrics;
  /** The SMS carrier router; tests pass a fake. */
  smsCarriers?: SmsCarriers;
  /** Sends email replies; by default nodemailer over the configured SMTP server (none: replies are not sent). */
  smtpSender?: SmtpSenderPort;
  /** Looks up the TXT records of email domain proofs; by default node's resolver on EMAIL_DNS_SERVERS. */
  dns?: TxtLookup;
  /** The clock business hours are read at (tests fix it; default: the system's). */
  clock?: () => Date;
}

/**
 * Builds every service once, wired to its dependencies. HTTP routes and activities both use these.
 * Each area adds its services here.
 */
export function createServices(deps: ServiceDeps) {
  const { config, db, workflows, metrics } = deps;
  const accounts = new AccountsService({ db, log: deps.log });
  const events = new EventsService({ db, metrics });
  const webhookEndpoints = new WebhookEndpointsService({
    db,
    workflows,
    events,
    allowPrivateNetwork: config.network.allowPrivate,
    maxEndpointsPerAccount: config.limits.webhookEndpointsPerAccount,
  });
  const webhookDeliveries = new WebhookDeliveryService({
    db,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivateNetwork: config.network.allowPrivate,
    metrics,
  });
  const webhookDispatcher = new WebhookDispatcher({
    db, events, deliveries: webhookDeliveries, workflows, log: deps.log, options: config.webhookDispatch,
  });
  const knowledge = createKnowledgeServices({ config, db, accounts, workflows, events, log: deps.log });
  const agents = new AgentsService({ db, knowledgeBases: knowledge.knowledgeBases, allowPrivateNetwork: config.network.allowPrivate });
  const visitorIdentity = new VisitorIdentityService({ db, agents, serverSecret: config.secrets.server });
  const publishableKeys = new PublishableKeysService({ db, accounts, agents, identity: visitorIdentity, serverSecret: config.secrets.server });
  const widgetSettings = new WidgetSettingsService({ db });
  const phoneNumbers = new PhoneNumbersService({ db, agents });
  const senders = new SendersService({ db, reserved: [config.verify.from] });
  const messages = new MessagesService({ db, workflows, events, phoneNumbers, senders, config });
  const smsDispatcher = new SmsDispatcher({
    db, workflows, log: deps.log,
    onQueued: (listener) => messages.onQueued(listener),
    onSweep: () => messageBatches.completeFinishedBatches(),
    options: { ...DEFAULT_SMS_DISPATCH, receiptTimeoutSeconds: config.messaging.receiptTimeoutSeconds },
  });
  const messageBatches = new MessageBatchesService({ db, events, messages, config });
  const receiptFolder = new ReceiptFolder({ db, events });
  const messageDelivery = new MessageDeliveryService({ db, events, config, carriers: deps.smsCarriers, receiptFolder });
  const messageRounds = new MessageRoundSender({ db, events, config, carriers: deps.smsCarriers, delivery: messageDelivery, receiptFolder });
  const verifications = new VerificationsService({ db, workflows, events, messages, config });
  const emailDomains = new EmailDomainsService({ db, serverSecret: config.secrets.server, dns: deps.dns ?? createTxtLookup({ servers: config.email.dnsServers, timeoutMs: config.email.dnsTimeoutMs }) });
  // A live short link to one of the account's verified email domains redirects at once (docs/decisions/links-interstitial.md).
  const verifiedDomains = { verifiedDomains: (accountId: string, mode: 'test' | 'live') => emailDomains.verifiedDomains({ accountId, livemode: mode === 'live' }) };
  const publicLinks = { publicBaseUrl: config.http.publicBaseUrl, publicBaseUrlIsLoopback: config.http.publicBaseUrlIsLoopback };
  const shortLinks = new ShortLinksService({ db, ...publicLinks, serverSecret: config.secrets.server, verifiedDomains });
  const citationPages = new CitationPagesService({ db, ...publicLinks, serverSecret: config.secrets.server });
  const runNotifier = new RunNotifier({ db, databaseUrl: config.database.url, notifyAcrossProcesses: config.database.url !== undefined, log: deps.log });
  const conversationRepo = new ConversationRepo();
  const emailTracking = new EmailTrackingService({ db, events, publicBaseUrl: config.http.publicBaseUrl, serverSecret: config.secrets.server });
  // One SMTP transport: email replies and the console's invites.
  const smtpSender = deps.smtpSender ?? (config.email.smtp ? new SmtpSender(config.email.smtp) : undefined);
  const emailReplies = new EmailReplyChannel({
    db, config, events, conversations: conversationRepo, tracking: emailTracking, domains: emailDomains, log: deps.log,
    sender: smtpSender,
  });
  // Each channel's adapter registers here (src/channels/<channel>); chat is built in.
  const replyChannels = new ReplyChannels([
    new SmsReplyChannel({ messages, phoneNumbers, shortLinks, accounts, log: deps.log }),
    emailReplies,
    createVoiceReplyChannel({ publicBaseUrl: config.http.publicBaseUrl }),
  ]);
  const runs = new RunsService({ db, workflows, notifier: runNotifier, agents, events });
  const queues = new QueuesService({ db });
  const conversationEvents = new ConversationEventsNotifier({ db, databaseUrl: config.database.url, log: deps.log });
  const conversations = new ConversationsService({ db, agents, events, workflows, runsService: runs, config, channels: replyChannels, queues, clock: deps.clock, log: deps.log, streams: conversationEvents });
  const visitorConversations = new VisitorConversationsService({
    db, conversations,
    proactiveMessageOf: async (agentId) => (await widgetSettings.widgetConfig({ agentId })).proactive?.message ?? null,
  });
  const conversationStream = new ConversationStreamService({ db, notifier: conversationEvents });
  const inbox = new InboxService({ db });
  const inboxStream = new InboxStreamService({ notifier: conversationEvents, inbox });
  const conversationNotes = new ConversationNotesService({ db });
  // With SMTP configured, the team hears of conversations that need a person by email too.
  const teamAlerts = smtpSender
    ? new TeamAlerts({ notifier: conversationEvents, inbox, sender: smtpSender, from: config.email.from, messageIdDomain: config.email.messageIdDomain, publicBaseUrl: config.http.publicBaseUrl, log: deps.log })
    : undefined;
  const savedReplies = new SavedRepliesService({ db });
  // Inbound SMS comes after conversations: a customer's SMS to a number with an agent is posted there.
  const inboundSms = new InboundSmsService({
    db, workflows, events, phoneNumbers, senders, messages, config, log: deps.log,
    delivery: messageDelivery,
    rounds: messageRounds,
    customerSms: new SmsInboundAdapter({ conversations, log: deps.log }),
    carriers: deps.smsCarriers,
  });
  const inboundEmail = new InboundEmailService({ db, config, conversations, events, log: deps.log });
  const emailAddresses = new EmailAddressesService({ db, agents });
  const emails = new EmailsService({ db, replies: emailReplies });
  const runSteps = new RunStepsService({
    db,
    agents,
    accounts,
    knowledgeRetrieval: knowledge.knowledgeRetrieval,
    conversations: conversations.runOutcomes,
    events,
    workflows,
    notifier: runNotifier,
    citationPages,
    planner: createPlanner(config.planner, { embeddings: knowledge.queryEmbeddings, catalogueEmbeddings: knowledge.backfillEmbeddings, warn: (m) => deps.log.warn(m) }),
    allowPrivateNetwork: config.network.allowPrivate,
    log: deps.log,
    toolAnswers: new DeclaredToolAnswers({ db }),
  });
  const testCases = new TestCasesService({ db, agents });
  const evaluations = new EvaluationsService({ db, agents, events, workflows, concurrency: config.evaluations.concurrency });
  const evaluationCases = new EvaluationCaseRunner({ db, conversations, runs });
  agents.setPublishGate(new EvaluationPublishGate({ db, agents }));
  const voiceCalls = new VoiceCallsService({
    db, phoneNumbers, agents, conversations, runs, events, log: deps.log,
    publicBaseUrl: config.http.publicBaseUrl,
    turnWaitMs: config.voice.turnWaitMs,
  });
  const calls = new CallsService({ db });
  const testHelpers = new TestHelpersService({ inboundSms, messages, phoneNumbers, inboundEmail, emailAddresses, voiceCalls, calls });
  const consoleSessions = new ConsoleSessionsService({ db, accounts });
  const teammates = new TeammatesService({
    db, consoleSessions, serverSecret: config.secrets.server, publicBaseUrl: config.http.publicBaseUrl, log: deps.log,
    mail: smtpSender ? { sender: smtpSender, from: config.email.from, messageIdDomain: config.email.messageIdDomain } : undefined,
  });
  const analytics = new AnalyticsService({ db, agents, clock: deps.clock });
  const feedback = new FeedbackService({ db });
  const analyticsRollup = new RollupService({ db, log: deps.log, workflows });
  const demoTraffic = new DemoTraffic({ db, accounts, agents });
  return {
    ...knowledge, demoTraffic, analytics, feedback, analyticsRollup, queues, testCases, evaluations, evaluationCases, consoleSessions, teammates, replyChannels, shortLinks, citationPages, voiceCalls, calls, testHelpers, inboundEmail, emailAddresses, emailDomains, emails, emailTracking, agents, conversations, visitorConversations, conversationEvents, conversationStream, inbox, inboxStream, conversationNotes, savedReplies, teamAlerts, runs, runSteps,
    runNotifier, accounts, publishableKeys, visitorIdentity, widgetSettings, events, webhookEndpoints, webhookDeliveries, webhookDispatcher, phoneNumbers, senders, messages, smsDispatcher, messageBatches, messageDelivery, messageRounds, inboundSms, verifications,
  };
}

export type Services = ReturnType<typeof createServices>;
