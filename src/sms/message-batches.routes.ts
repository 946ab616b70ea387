import { z } from 'zod';
import { defineRoute } from '../http/route';
import { responseStoreOf } from '../http/middleware/idempotency';
import { HttpUrlSchema, IdParamsSchema, listOf, PageQuerySchema, SenderSchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import { scopeOf } from '../domain/principal';
import { VARIABLE_NAME_PATTERN } from './body-template';
import { MAX_BATCH_RECIPIENTS, type MessageBatchesService } from './message-batches.service';
import { MessageBatchSchema } from './message-batch.schemas';
import { MessageSchema } from './message.schemas';
import { MAX_BODY_CHARS } from './messages.service';

const RecipientSchema = z.strictObject({
  // Checked by the service, so that skip_invalid can leave a bad one out (reported by index).
  to: z.string().max(64).describe('E.164 recipient'),
  variables: z
    .record(z.string().regex(VARIABLE_NAME_PATTERN).max(64), z.string().max(MAX_BODY_CHARS))
    .refine((v) => Object.keys(v).length <= 50, 'at most 50 variables')
    // The key rule in the OpenAPI document too (zod-to-openapi does not carry a record's key schema).
    .openapi({ propertyNames: { type: 'string', pattern: VARIABLE_NAME_PATTERN.source, maxLength: 64 }, maxProperties: 50 } as object)
    .optional()
    .describe('values of the body template\'s {{name}} placeholders; a placeholder without a value is an error'),
  reference: z.string().max(255).optional().describe('echoed on this recipient\'s message and its webhooks'),
});

const CreateBatchBodySchema = z.strictObject({
  from: SenderSchema,
  body: z.string().min(1).max(MAX_BODY_CHARS).describe('body template with {{name}} placeholders; each rendered body at most 10 segments'),
  recipients: z.array(RecipientSchema).min(1).max(MAX_BATCH_RECIPIENTS),
  type: z.enum(['transactional', 'promotional']).optional(),
  status_callback: HttpUrlSchema.optional().describe('receives message.updated of every message and message_batch.completed'),
  send_at: z.iso.datetime({ offset: true }).optional().describe('RFC 3339, not in the past, at most 35 days ahead (else 422)'),
  skip_invalid: z.boolean().optional().describe('queue the valid recipients and list the others under rejected (default: refuse the batch)'),
});

export function registerMessageBatchRoutes({ router, registry, services }: RouteDeps<{ messageBatches: MessageBatchesService }>) {
  const tag = 'SMS';
  const svc = services.messageBatches;

  defineRoute(router, registry, { method: 'post', path: '/v1/message_batches', summary: `Send one SMS body template to up to ${MAX_BATCH_RECIPIENTS} recipients`, tag, body: CreateBatchBodySchema, response: MessageBatchSchema, status: 202 },
    ({ body, principal, res }) => {
      const store = responseStoreOf(res);
      return svc.createBatch({ principal, ...body, recordResponse: store && ((tx, batch) => store(tx, 202, batch)) });
    });

  defineRoute(router, registry, { method: 'get', path: '/v1/message_batches/{id}', summary: 'Retrieve a message batch with its counts by status', tag, params: IdParamsSchema, response: MessageBatchSchema },
    ({ params, principal }) => svc.getBatch({ ...scopeOf(principal), batchId: params.id }));

  defineRoute(router, registry, { method: 'get', path: '/v1/message_batches/{id}/messages', summary: 'List a batch\'s messages, newest first', tag, params: IdParamsSchema, query: PageQuerySchema, response: listOf(MessageSchema, 'MessageBatchMessageList') },
    ({ params, query, principal }) => svc.listBatchMessages({ ...scopeOf(principal), batchId: params.id, page: query }));

  defineRoute(router, registry, { method: 'post', path: '/v1/message_batches/{id}/cancel', summary: 'Cancel the batch\'s messages not yet handed to a carrier', tag, params: IdParamsSchema, response: MessageBatchSchema },
    ({ params, principal }) => svc.cancelBatch({ ...scopeOf(principal), batchId: params.id }));
}
