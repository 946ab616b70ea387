import type { RouteDeps } from '../http/route-deps';
import type { TestHelpersService } from './test-helpers.service';
import { defineRoute } from '../http/route';
import { IdParamsSchema } from '../http/schemas';
import { AppError } from '../domain/errors';
import { scopeOf } from '../domain/principal';
import { MessageSchema } from '../sms/message.schemas';
import { CallSchema } from '../channels/voice/call.schemas';
import { InboundEmailResultSchema } from '../channels/email/email.schemas';
import {
  InboundTestEmailBodySchema,
  InboundTestMessageBodySchema,
  TestCallBodySchema,
  TestCallTurnSchema,
  TestHangupBodySchema,
  TestReceiptBodySchema,
  TestSpeechBodySchema,
} from './test-helpers.schemas';

export const TEST_HELPERS_PATH = '/v1/test_helpers';

/**
 * Test helpers under /v1/test_helpers (test keys only): a live key is answered 404 route_missing for
 * every path below, before its body is read, exactly as for a path that does not exist.
 */
export function registerTestHelperRoutes({ router, registry, services }: RouteDeps<{ testHelpers: TestHelpersService }>) {
  const tag = 'Test helpers';
  const svc = services.testHelpers;
  const description = 'Test mode only: a live key gets 404 route_missing.';

  router.use(TEST_HELPERS_PATH, (req, _res, next) => {
    if (req.principal?.mode !== 'live') return next();
    next(new AppError('route_missing', `Unrecognized request URL (${req.method}: ${req.baseUrl}${req.path})`));
  });

  defineRoute(router, registry, {
    method: 'post', path: `${TEST_HELPERS_PATH}/inbound_messages`, tag, status: 201, description,
    summary: "Receive a test SMS on one of the account's numbers (keywords, conversation, agent run and reply over the sandbox)",
    body: InboundTestMessageBodySchema, response: MessageSchema,
  }, ({ body, principal }) => svc.receiveTestMessage({ ...scopeOf(principal), ...body }));

  defineRoute(router, registry, {
    method: 'post', path: `${TEST_HELPERS_PATH}/messages/{id}/receipt`, tag, description,
    summary: 'Deliver a carrier receipt for a test message the sandbox took (sending or sent)',
    params: IdParamsSchema, body: TestReceiptBodySchema, response: MessageSchema,
  }, ({ params, body, principal }) => svc.receiveTestReceipt({ ...scopeOf(principal), ...body, messageId: params.id }));

  defineRoute(router, registry, {
    method: 'post', path: `${TEST_HELPERS_PATH}/inbound_emails`, tag, description,
    summary: "Receive a test email (raw RFC 822, or structured) on one of the account's addresses",
    body: InboundTestEmailBodySchema, response: InboundEmailResultSchema.openapi('InboundEmailResult'),
  }, ({ body, principal }) => svc.receiveTestEmail({ ...scopeOf(principal), ...body }));

  defineRoute(router, registry, {
    method: 'post', path: `${TEST_HELPERS_PATH}/calls`, tag, status: 201, description,
    summary: "Place a test voice call to one of the account's numbers: the call and the TwiML its call flow answers",
    body: TestCallBodySchema, response: TestCallTurnSchema,
  }, ({ body, principal }) => svc.placeTestCall({ ...scopeOf(principal), ...body }));

  defineRoute(router, registry, {
    method: 'post', path: `${TEST_HELPERS_PATH}/calls/{id}/speech`, tag, description,
    summary: 'Say something on a test call: the TwiML the service answers (the agent\'s spoken reply, a hold or a transfer)',
    params: IdParamsSchema, body: TestSpeechBodySchema, response: TestCallTurnSchema,
  }, ({ params, body, principal }) => svc.speakOnTestCall({ ...scopeOf(principal), callId: params.id, speech: body.speech, confidence: body.confidence }));

  defineRoute(router, registry, {
    method: 'post', path: `${TEST_HELPERS_PATH}/calls/{id}/hangup`, tag, description,
    summary: 'Hang up a test call (its final status, completed, with the duration)',
    params: IdParamsSchema, body: TestHangupBodySchema, response: CallSchema,
  }, ({ params, body, principal }) => svc.hangUpTestCall({ ...scopeOf(principal), callId: params.id, durationSeconds: body.duration_seconds }));
}
