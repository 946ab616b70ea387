import { z } from 'zod';
import { defineRoute } from '../http/route';
import { E164Schema } from '../domain/api-schema';
import { IdParamsSchema, SenderSchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import type { VerificationsService } from './verifications.service';
import { VerificationCheckSchema, VerificationSchema } from './verification.schemas';
import { scopeOf } from '../domain/principal';

const CreateBodySchema = z.strictObject({
  to: E164Schema.describe('E.164 recipient (a number outside its numbering plan: 422)'),
  channel: z.literal('sms'),
  from: SenderSchema.optional().describe("sender of the code, one of the account's own (else 403); the platform's sender when absent"),
});

const CheckBodySchema = z.strictObject({ code: z.string().min(1).max(20) });

export function registerVerificationRoutes({ router, registry, services }: RouteDeps<{ verifications: VerificationsService }>) {
  const tag = 'Verifications';
  const svc = services.verifications;

  defineRoute(router, registry, { method: 'post', path: '/v1/verifications', summary: 'Send a one-time code', tag, body: CreateBodySchema, response: VerificationSchema, status: 201 },
    ({ body, principal }) => svc.createVerification({ principal, ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/verifications/{id}', summary: 'Retrieve a verification', tag, params: IdParamsSchema, response: VerificationSchema },
    ({ params, principal }) => svc.getVerification({ ...scopeOf(principal), verificationId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/verifications/{id}/check', summary: 'Check a code (limited attempts)', tag, params: IdParamsSchema, body: CheckBodySchema, response: VerificationCheckSchema },
    ({ params, body, principal }) => svc.checkVerification({ ...scopeOf(principal), verificationId: params.id, code: body.code }));
}
