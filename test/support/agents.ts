import assert from 'node:assert/strict';
import type { AgentConfigInput } from '../../src/agents/agent.schemas';
import { waitForSource } from '../integration/knowledge-helpers';
import { apiClient, type ApiClient } from './http';
import type { TestStack } from './stack';

/** A small help center every agent test can ask about. */
export const HELP_CENTER = [
  { title: 'Refund policy', content: 'Refunds are issued within 14 days of purchase to the original payment method.', url: 'https://help.example.com/refunds' },
  { title: 'Shipping times', content: 'Standard shipping takes 3 to 5 business days. Express shipping arrives the next day.', url: 'https://help.example.com/shipping' },
  { title: 'Password reset', content: 'To reset your password, open Settings, choose Security and click Reset password.', url: 'https://help.example.com/password' },
];

export interface AgentFixture {
  accountId: string;
  /** The mode of the fixture's key, and so of everything it seeded. */
  livemode: boolean;
  apiKey: string;
  call: ApiClient;
  knowledgeBaseId: string;
  agentId: string;
}

/**
 * A fresh account with a ready knowledge base of `records` and a published agent over it (`agent`
 * overrides the config). Builds through the API where the API can, and the agents service otherwise
 * (agents are authored in the console, not the API). Everything is in the mode of the key (`mode`).
 */
export async function seedAgent(stack: TestStack, agent: Partial<AgentConfigInput> = {}, records = HELP_CENTER, mode: 'test' | 'live' = 'test'): Promise<AgentFixture> {
  const { accountId, apiKey } = await stack.newAccount(undefined, mode);
  const livemode = mode === 'live';
  const call = apiClient(stack.baseUrl, apiKey);
  const kb = await call('POST', '/v1/knowledge_bases', { name: 'Help center' });
  assert.equal(kb.status, 201);
  const src = await call('POST', `/v1/knowledge_bases/${kb.body.id}/sources`, { type: 'record', records, refresh: 'manual' });
  assert.equal(src.status, 202);
  await waitForSource(call, kb.body.id, src.body.id, 'ready');
  const created = await stack.services.agents.createAgent({
    accountId,
    livemode,
    // The default confidence floor (0.5): scores are calibrated probabilities on small bases too; the
    // floor's own behaviour is tested with explicit values.
    config: { name: 'Support', channels: ['chat', 'sms'], knowledge_bases: [{ id: kb.body.id }], ...agent },
  });
  await stack.services.agents.publishAgent({ accountId, livemode, agentId: created.id });
  return { accountId, livemode, apiKey, call, knowledgeBaseId: kb.body.id, agentId: created.id };
}

/** Opens a chat conversation with the fixture's agent. */
export async function openConversation(f: AgentFixture, body: Record<string, unknown> = {}): Promise<string> {
  const res = await f.call('POST', '/v1/conversations', { agent_id: f.agentId, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}

/** Posts a customer message and returns the response (the message with its run). */
export async function ask(f: AgentFixture, conversationId: string, content: string, query = '') {
  const res = await f.call('POST', `/v1/conversations/${conversationId}/messages${query}`, { role: 'customer', content });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** The refund tool the approval tests use: `refund_order` on `{toolServerUrl}/refund`, taking a five-digit order number. */
export const refundTool = (toolServerUrl: string, overrides: Record<string, unknown> = {}) => ({
  name: 'refund_order',
  description: 'Refund an order by its order number',
  parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{5}$', description: 'order number' } }, required: ['order_id'] },
  endpoint: `${toolServerUrl}/refund`,
  timeout_ms: 2000,
  ...overrides,
});
