import { z } from '../domain/api-schema';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import type { EvaluationsService } from './evaluations.service';
import type { TestCasesService } from './test-cases.service';
import { DeletedSchema, IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import { scopeOf } from '../domain/principal';
import {
  CreateEvaluationBodySchema,
  EvaluationSchema,
  TestCaseDefinitionSchema,
  TestCaseParamsSchema,
  TestCaseSchema,
} from './evaluation.schemas';

const EvaluationListQuerySchema = PageQuerySchema.extend({ agent_id: z.string().min(1).max(255).optional().describe("only this agent's evaluations") });

/** An agent's test cases (`/v1/agents/{id}/test_cases`) and its evaluations (`/v1/evaluations`). */
export function registerEvaluationRoutes({ router, registry, services }: RouteDeps<{ evaluations: EvaluationsService; testCases: TestCasesService }>) {
  const tag = 'Evaluations';
  const cases = services.testCases;
  const evaluations = services.evaluations;

  defineRoute(router, registry, {
    method: 'post', path: '/v1/agents/{id}/test_cases', summary: "Create a test case of the agent (scripted customer turns, expectations, declared tool results)", tag,
    params: IdParamsSchema, body: TestCaseDefinitionSchema, response: TestCaseSchema, status: 201,
  }, ({ params, body, principal }) => cases.createTestCase({ ...scopeOf(principal), agentId: params.id, definition: body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/agents/{id}/test_cases', summary: "List the agent's test cases", tag, params: IdParamsSchema, query: PageQuerySchema, response: listOf(TestCaseSchema, 'TestCaseList') },
    ({ params, query, principal }) => cases.listTestCases({ ...scopeOf(principal), agentId: params.id, page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/agents/{id}/test_cases/{case_id}', summary: 'Retrieve a test case', tag, params: TestCaseParamsSchema, response: TestCaseSchema },
    ({ params, principal }) => cases.getTestCase({ ...scopeOf(principal), agentId: params.id, caseId: params.case_id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/agents/{id}/test_cases/{case_id}', summary: 'Replace a test case (the whole definition)', tag,
    params: TestCaseParamsSchema, body: TestCaseDefinitionSchema, response: TestCaseSchema,
  }, ({ params, body, principal }) => cases.updateTestCase({ ...scopeOf(principal), agentId: params.id, caseId: params.case_id, definition: body }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/agents/{id}/test_cases/{case_id}', summary: 'Delete a test case', tag, params: TestCaseParamsSchema, response: DeletedSchema },
    ({ params, principal }) => cases.deleteTestCase({ ...scopeOf(principal), agentId: params.id, caseId: params.case_id }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/evaluations', summary: "Evaluate an agent version or its draft: run its test cases (all, or case_ids) in hidden test conversations", tag,
    body: CreateEvaluationBodySchema, response: EvaluationSchema, status: 201,
  }, ({ body, principal }) => evaluations.createEvaluation({ ...scopeOf(principal), agentId: body.agent_id, version: body.version, caseIds: body.case_ids }));

  defineRoute(router, registry, { method: 'get', path: '/v1/evaluations', summary: 'List evaluations (newest first), optionally of one agent', tag, query: EvaluationListQuerySchema, response: listOf(EvaluationSchema, 'EvaluationList') },
    ({ query, principal }) => {
      const { agent_id: agentId, ...page } = query;
      return evaluations.listEvaluations({ ...scopeOf(principal), page, agentId });
    });

  defineRoute(router, registry, { method: 'get', path: '/v1/evaluations/{id}', summary: 'Retrieve an evaluation with its results per case and the comparison with the live version', tag, params: IdParamsSchema, response: EvaluationSchema },
    ({ params, principal }) => evaluations.getEvaluation({ ...scopeOf(principal), evaluationId: params.id }));
}
