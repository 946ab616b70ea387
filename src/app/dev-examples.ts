import type { KnowledgeRecordInput } from '../db/tables/knowledge';
import type { Logger } from '../observability/logger';
import type { Services } from './container';

export const EXAMPLE_KNOWLEDGE_BASE_NAME = 'Example: Acme help center';
export const EXAMPLE_AGENT_NAME = 'Example support agent';

/** The help center of Acme, an imaginary online store: enough for a first grounded answer with citations. */
export const EXAMPLE_FAQ: KnowledgeRecordInput[] = [
  {
    title: 'Shipping times and costs',
    content: 'Standard shipping takes 3 to 5 business days and is free on orders over $50. Express shipping arrives the next business day for $12.',
    url: 'https://help.acme.example/shipping',
  },
  {
    title: 'Returns',
    content: 'You can return any unused item within 30 days of delivery. Start a return from Orders in your account and print the prepaid return label.',
    url: 'https://help.acme.example/returns',
  },
  {
    title: 'Refunds',
    content: 'Refunds are issued to the original payment method within 5 business days after the returned item reaches our warehouse.',
    url: 'https://help.acme.example/refunds',
  },
  {
    title: 'Password reset',
    content: 'To reset your password, open Settings, choose Security and click Reset password. The reset link in the email is valid for one hour.',
    url: 'https://help.acme.example/password',
  },
  {
    title: 'Store opening hours',
    content: 'Our Springfield store is open Monday to Saturday from 9 am to 7 pm and on Sunday from 10 am to 4 pm. It is closed on public holidays.',
    url: 'https://help.acme.example/hours',
  },
  {
    title: 'Contact us',
    content: 'You can reach customer service by email at help@acme.example or by phone at +1 415 555 0100, Monday to Friday from 8 am to 6 pm Pacific time.',
    url: 'https://help.acme.example/contact',
  },
  {
    title: 'Warranty',
    content: 'Every Acme product has a two year warranty against manufacturing defects. Keep your receipt; the warranty does not cover accidental damage.',
    url: 'https://help.acme.example/warranty',
  },
  {
    title: 'Order tracking',
    content: 'To track your order, open Orders in your account and click Track package. The tracking number is also in your shipping confirmation email.',
    url: 'https://help.acme.example/tracking',
  },
];

export interface ExampleAgent {
  agentId: string;
  knowledgeBaseId: string;
  /** False when an earlier start created it. */
  created: boolean;
}

/**
 * The example knowledge base and live example agent of the development account (test mode, like its
 * key), created on the first
 * start and found by name afterwards (a second start creates nothing). Waits up to `readyTimeoutMs` for
 * the help center to be indexed so the first question after the banner gets a grounded answer.
 */
export async function ensureExampleAgent(input: { services: Services; accountId: string; log: Logger; readyTimeoutMs?: number }): Promise<ExampleAgent> {
  const { services, accountId, log } = input;
  const existing = await services.agents.findAgentByName({ accountId, livemode: false, name: EXAMPLE_AGENT_NAME });
  if (existing) {
    const config = (await services.agents.getAgent({ accountId, livemode: false, agentId: existing.id })).knowledge_sources;
    return { agentId: existing.id, knowledgeBaseId: config[0] ?? '', created: false };
  }
  const knowledgeBaseId = (await findExampleBase(services, accountId)) ?? (await createExampleBase(services, accountId, log, input.readyTimeoutMs ?? 20_000));
  const agent = await services.agents.createAgent({
    accountId,
    livemode: false,
    config: {
      name: EXAMPLE_AGENT_NAME,
      channels: ['chat', 'sms'],
      locales: ['en'],
      instructions: 'An example agent created by `npm start`: it answers from the example Acme help center and cites its sources. Edit or delete it freely.',
      knowledge_bases: [{ id: knowledgeBaseId }],
      retrieval_required: true,
      // The default confidence floor (0.5): scores are calibrated probabilities, on small bases too.
      guardrails: { restricted_topics: ['legal advice'] },
      handoff: { default_queue: 'support', on_low_confidence: true },
    },
  });
  await services.agents.publishAgent({ accountId, livemode: false, agentId: agent.id });
  log.info({ agentId: agent.id, knowledgeBaseId }, 'Example agent created');
  return { agentId: agent.id, knowledgeBaseId, created: true };
}

async function findExampleBase(services: Services, accountId: string): Promise<string | undefined> {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await services.knowledgeBases.listBases({ accountId, livemode: false, page: { limit: 100, starting_after: startingAfter } });
    const found = page.data.find((b) => b.name === EXAMPLE_KNOWLEDGE_BASE_NAME);
    if (found) return found.id;
    if (!page.has_more || page.data.length === 0) return undefined;
    startingAfter = page.data.at(-1)!.id;
  }
}

async function createExampleBase(services: Services, accountId: string, log: Logger, readyTimeoutMs: number): Promise<string> {
  const base = await services.knowledgeBases.createBase({ accountId, livemode: false, name: EXAMPLE_KNOWLEDGE_BASE_NAME, description: 'An imaginary store\'s FAQ, created by npm start for the example agent.' });
  const source = await services.knowledgeSources.addSource({
    principal: { accountId, keyId: 'npm-start', mode: 'test' },
    knowledgeBaseId: base.id,
    type: 'record',
    records: EXAMPLE_FAQ,
    refresh: 'manual',
  });
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    const s = await services.knowledgeSources.getSource({ accountId, livemode: false, knowledgeBaseId: base.id, sourceId: source.id });
    if (s.status !== 'indexing') {
      if (s.status === 'failed') log.warn({ sourceId: source.id }, 'The example help center failed to index');
      break;
    }
    if (Date.now() > deadline) {
      log.warn({ sourceId: source.id }, 'The example help center is still indexing');
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return base.id;
}
