import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import type { AgentsService } from './agents.service';
import { IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import { AgentSchema } from './agent.schemas';
import { scopeOf } from '../domain/principal';

/** Agents are read-only through the API; they are authored and published in the console (or the CLI). */
export function registerAgentRoutes({ router, registry, services }: RouteDeps<{ agents: AgentsService }>) {
  const tag = 'Agents';
  const svc = services.agents;

  defineRoute(router, registry, { method: 'get', path: '/v1/agents', summary: 'List agents', tag, query: PageQuerySchema, response: listOf(AgentSchema, 'AgentList') },
    ({ query, principal }) => svc.listAgents({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/agents/{id}', summary: 'Retrieve an agent (its live version, or its draft if never published)', tag, params: IdParamsSchema, response: AgentSchema },
    ({ params, principal }) => svc.getAgent({ ...scopeOf(principal), agentId: params.id }));
}
