import { z } from '../domain/api-schema';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import type { RunsService } from './runs.service';
import { IdParamsSchema } from '../http/schemas';
import { lastEventId, writeSse } from '../http/sse';
import { RunSchema } from './run.schemas';
import { scopeOf } from '../domain/principal';

export function registerRunRoutes({ router, registry, services }: RouteDeps<{ runs: RunsService }>) {
  const tag = 'Runs';
  const svc = services.runs;

  defineRoute(router, registry, { method: 'get', path: '/v1/runs/{id}', summary: 'Retrieve a run', tag, params: IdParamsSchema, response: RunSchema },
    ({ params, principal }) => svc.getRun({ ...scopeOf(principal), runId: params.id }));

  defineRoute(router, registry, {
    method: 'get', path: '/v1/runs/{id}/events', tag, raw: true, params: IdParamsSchema,
    eventStream: { status: 200, description: 'The run\'s events as server-sent events' },
    summary: 'The run as server-sent events (run.started, tool.called, reply.delta, run.requires_action, run.completed); resumes after Last-Event-ID',
  }, async ({ params, principal, req, res }) => {
    await svc.getRun({ ...scopeOf(principal), runId: params.id });
    await writeSse(req, res, (signal) => svc.streamEvents({ ...scopeOf(principal), runId: params.id, afterSeq: lastEventId(req), signal }));
  });

  defineRoute(router, registry, {
    method: 'post', path: '/v1/runs/{id}/tool_results', summary: 'Submit the result of an asynchronous tool call (202 pending earlier)', tag,
    params: IdParamsSchema, body: z.strictObject({ tool_call_id: z.string().min(1).max(255), result: z.record(z.string(), z.unknown()) }), response: RunSchema,
  }, ({ params, body, principal }) => svc.submitToolResult({ ...scopeOf(principal), runId: params.id, toolCallId: body.tool_call_id, result: body.result }));

  defineRoute(router, registry, {
    method: 'post', path: '/v1/runs/{id}/approvals', summary: 'Approve or reject a tool call gated by requires_approval', tag,
    params: IdParamsSchema,
    body: z.strictObject({ tool_call_id: z.string().min(1).max(255), decision: z.enum(['approve', 'reject']), note: z.string().max(2000).optional() }),
    response: RunSchema,
  }, ({ params, body, principal }) => svc.decideApproval({
    ...scopeOf(principal), runId: params.id, toolCallId: body.tool_call_id, decision: body.decision, note: body.note,
    // The key is the approver (a tool's approver_roles apply to its role).
    approver: { type: 'api_key', id: principal.keyId, name: null }, approverRole: principal.role ?? 'owner',
  }));
}
