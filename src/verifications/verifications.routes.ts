import { z } from 'zod';
import { defineRoute } from '../http/route';
import { E164Schema, IdParamsSchema, SenderSchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';

const VerificationSchema = z
  .object({
    id: z.string().describe('ver_ prefix'),
    object: z.literal('verification'),
    to: z.string(),
    channel: z.string(),
    status: z.enum(['pending', 'approved', 'expired', 'max_attempts_reached']),
    attempts: z.number().int().describe('codes checked so far'),
    max_attempts: z.number().int(),
    message_id: z.string().nullable().describe('the SMS that carried the code'),
    expires_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Verification');

const CreateBodySchema = z.strictObject({
  to: E164Schema.describe('E.164 recipient (a number outside its numbering plan: 422)'),
  channel: z.literal('sms'),
  from: SenderSchema.optional().describe("sender of the code, one of the account's own (else 403); the platform's sender when absent"),
});

const CheckBodySchema = z.strictObject({ code: z.string().min(1).max(20) });

export function registerVerificationRoutes({ router, registry, services }: RouteDeps) {
  const tag = 'Verifications';
  const svc = services.verifications;

  defineRoute(router, registry, { method: 'post', path: '/v1/verifications', summary: 'Send a one-time code', tag, body: CreateBodySchema, response: VerificationSchema, status: 201 },
    ({ body, principal }) => svc.createVerification({ principal, ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/verifications/{id}', summary: 'Retrieve a verification', tag, params: IdParamsSchema, response: VerificationSchema },
    ({ params, principal }) => svc.getVerification({ accountId: principal.accountId, verificationId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/verifications/{id}/check', summary: 'Check a code (limited attempts)', tag, params: IdParamsSchema, body: CheckBodySchema, response: VerificationSchema.extend({ valid: z.boolean() }) },
    ({ params, body, principal }) => svc.checkVerification({ accountId: principal.accountId, verificationId: params.id, code: body.code }));
}
