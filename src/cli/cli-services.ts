import { Client, Connection } from '@temporalio/client';
import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import { AccountsService } from '../accounts/accounts.service';
import { AgentsService } from '../agents/agents.service';
import { DemoTraffic } from '../demo/demo-traffic';
import { EmailAddressesService } from '../channels/email/email-addresses.service';
import { EvaluationPublishGate } from '../evaluations/evaluation-publish-gate';
import { EvaluationsService } from '../evaluations/evaluations.service';
import { TestCasesService } from '../evaluations/test-cases.service';
import { KnowledgeBasesService } from '../knowledge/knowledge-bases.service';
import { KnowledgeRetrievalService } from '../knowledge/knowledge-retrieval.service';
import { KnowledgeSourcesService } from '../knowledge/knowledge-sources.service';
import { PhoneNumbersService } from '../numbers/phone-numbers.service';
import { SendersService } from '../numbers/senders.service';
import { WorkflowGateway } from '../temporal/workflow-gateway';
import { PublishableKeysService } from '../widget/publishable-keys.service';
import { VisitorIdentityService } from '../widget/visitor-identity.service';
import { EventsService } from '../webhooks/events.service';
import { ConsoleSessionsService } from '../console/console-sessions.service';
import { TeammatesService } from '../console/teammates.service';
import { SmtpSender } from '../channels/email/smtp-sender';

/** The services the CLI's commands use (the service's own container has each of them too). */
export interface CliServices {
  accounts: AccountsService;
  agents: AgentsService;
  testCases: TestCasesService;
  evaluations: EvaluationsService;
  phoneNumbers: PhoneNumbersService;
  emailAddresses: EmailAddressesService;
  senders: SendersService;
  publishableKeys: PublishableKeysService;
  teammates: TeammatesService;
  demoTraffic: DemoTraffic;
}

/**
 * The CLI's services built on the database alone (`npm run cli` with no running service to go through).
 * Agent commands only read knowledge bases (to check the ids a config names); the knowledge services still
 * take a Temporal gateway, so it gets a lazy connection that dials only when a command starts a workflow
 * (`agents test` starts an evaluation on the running service's Temporal: its worker runs the cases).
 */
export function buildCliServices(input: { config: Config; db: Kysely<DB> }) {
  const { config, db } = input;
  const accounts = new AccountsService({ db });
  const connection = Connection.lazy({ address: config.temporal.address ?? `127.0.0.1:${config.temporal.grpcPort}` });
  const workflows = new WorkflowGateway(new Client({ connection, namespace: config.temporal.namespace }), config.temporal.taskQueue);
  const allowPrivateNetwork = config.network.allowPrivate;
  const retrieval = new KnowledgeRetrievalService({ db, accounts, allowPrivateNetwork, apiTimeoutMs: config.knowledge.apiTimeoutMs });
  const sources = new KnowledgeSourcesService({ db, workflows, allowPrivateNetwork });
  const knowledgeBases = new KnowledgeBasesService({ db, sources, retrieval });
  const agents = new AgentsService({ db, knowledgeBases, allowPrivateNetwork });
  agents.setPublishGate(new EvaluationPublishGate({ db, agents }));
  const evaluations = new EvaluationsService({ db, agents, events: new EventsService({ db }), workflows, concurrency: config.evaluations.concurrency });
  const services: CliServices & { close(): Promise<void> } = {
    accounts,
    agents,
    testCases: new TestCasesService({ db, agents }),
    evaluations,
    phoneNumbers: new PhoneNumbersService({ db, agents }),
    emailAddresses: new EmailAddressesService({ db, agents }),
    senders: new SendersService({ db, reserved: [config.verify.from] }),
    teammates: new TeammatesService({
      db, consoleSessions: new ConsoleSessionsService({ db, accounts }), serverSecret: config.secrets.server, publicBaseUrl: config.http.publicBaseUrl,
      mail: config.email.smtp ? { sender: new SmtpSender(config.email.smtp), from: config.email.from, messageIdDomain: config.email.messageIdDomain } : undefined,
    }),
    demoTraffic: new DemoTraffic({ db, accounts, agents }),
    publishableKeys: new PublishableKeysService({ db, accounts, agents, identity: new VisitorIdentityService({ db, agents, serverSecret: config.secrets.server }), serverSecret: config.secrets.server }),
    /** Closes the Temporal connection if a command dialled it. */
    close: () => connection.close().catch(() => undefined),
  };
  // The knowledge bases an agent config names are checked through these (tests seed them here too).
  return { ...services, knowledgeBases };
}

export type StandaloneCliServices = ReturnType<typeof buildCliServices>;
