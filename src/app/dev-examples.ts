import type { Logger } from '../observability/logger';
import type { Services } from './container';
import type { AgentConfigInput } from '../agents/agent.schemas';
import { EXAMPLE_AGENT_NAME, EXAMPLE_FAQ, EXAMPLE_KNOWLEDGE_BASE_NAME } from '../demo/example-content';

export { EXAMPLE_AGENT_NAME, EXAMPLE_FAQ, EXAMPLE_KNOWLEDGE_BASE_NAME } from '../demo/example-content';

/** The example agent's config, answering from the given knowledge base. */
export function exampleAgentConfig(knowledgeBaseId: string): AgentConfigInput {
  return {
    name: EXAMPLE_AGENT_NAME,
    channels: ['chat', 'sms'],
    locales: ['en'],
    instructions: 'An example agent created by `npm start`: it answers from the example Acme help center and cites its sources. Edit or delete it freely.',
    knowledge_bases: [{ id: knowledgeBaseId }],
    retrieval_required: true,
    // The default confidence floor (0.5): scores are calibrated probabilities, on small bases too.
    guardrails: { restricted_topics: ['legal advice'] },
    handoff: { default_queue: 'support', on_low_confidence: true },
  };
}

export interface ExampleAgent {
  agentId: string;
  knowledgeBaseId: string;
  /** False when an earlier start created it. */
  created: boolean;
}

/**
 * The example knowledge base and live example agent of the development account (test mode, like its
 * key), created on the first
 * start and found by name afterwards (a second start creates nothing). Waits up to `readyTimeoutMs` (90 s)
 * for the help center to be indexed, and embedded when embeddings are on, so the first question after the
 * banner is answered like the tenth.
 */
export async function ensureExampleAgent(input: { services: Services; accountId: string; log: Logger; readyTimeoutMs?: number }): Promise<ExampleAgent> {
  const { services, accountId, log } = input;
  const existing = await services.agents.findAgentByName({ accountId, livemode: false, name: EXAMPLE_AGENT_NAME });
  if (existing) {
    const config = (await services.agents.getAgent({ accountId, livemode: false, agentId: existing.id })).knowledge_sources;
    return { agentId: existing.id, knowledgeBaseId: config[0] ?? '', created: false };
  }
  const knowledgeBaseId = (await findExampleBase(services, accountId)) ?? (await createExampleBase(services, accountId, log, input.readyTimeoutMs ?? 90_000));
  const agent = await services.agents.createAgent({ accountId, livemode: false, config: exampleAgentConfig(knowledgeBaseId) });
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
    // With embeddings on, also until its vectors are in: else the first questions after the banner would
    // be matched by their words only, unlike the later ones.
    const embedded = services.knowledgeRetrieval.mode !== 'hybrid' || s.embedded_passages >= s.passage_count;
    if (s.status === 'failed') {
      log.warn({ sourceId: source.id }, 'The example help center failed to index');
      break;
    }
    if (s.status !== 'indexing' && embedded) break;
    if (Date.now() > deadline) {
      log.warn({ sourceId: source.id }, 'The example help center is still indexing');
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return base.id;
}
