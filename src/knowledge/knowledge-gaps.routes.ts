import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { scopeOf } from '../domain/principal';
import type { KnowledgeGapsService } from './knowledge-gaps.service';
import { KnowledgeGapReportSchema, KnowledgeGapsQuerySchema } from './knowledge-gaps.schemas';

/** `GET /v1/analytics/knowledge_gaps`: an agent's unanswered questions of a period, grouped by meaning. */
export function registerKnowledgeGapRoutes({ router, registry, services }: RouteDeps<{ knowledgeGaps: KnowledgeGapsService }>) {
  defineRoute(router, registry, {
    method: 'get', path: '/v1/analytics/knowledge_gaps', tag: 'Analytics', query: KnowledgeGapsQuerySchema, response: KnowledgeGapReportSchema,
    summary: "An agent's knowledge gaps: the questions it handed off for no_supporting_source or low_confidence in a period, grouped by meaning",
    description:
      'Questions of runs handed off for `no_supporting_source` or `low_confidence` between `from` (inclusive) and `to` (exclusive), at most 92 days, ' +
      'outside console test chats and evaluations, in the key\'s mode. They are grouped by meaning with the embedding model (by shared words with ' +
      'EMBEDDINGS=off: `grouping.method` says which), and the groups come most conversations first, with their trend against the period of the same ' +
      'length just before. An agent of another account or mode is 404; `from` not before `to`, or a longer period, is 422.',
  }, ({ query, principal }) =>
    services.knowledgeGaps.getKnowledgeGaps({
      ...scopeOf(principal), agentId: query.agent_id, from: query.from ? new Date(query.from) : undefined, to: query.to ? new Date(query.to) : undefined, limit: query.limit,
    }));
}
