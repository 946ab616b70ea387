import { z } from '../domain/api-schema';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { DeletedSchema, IdParamsSchema, listOf } from '../http/schemas';
import { scopeOf } from '../domain/principal';
import { CreateQueueBodySchema, QueueSchema, UpdateQueueBodySchema } from './queue.schemas';
import type { QueuesService } from './queues.service';

/** Handoff queues and their business hours (what the handoff notice says outside them). */
export function registerQueueRoutes({ router, registry, services }: RouteDeps<{ queues: QueuesService }>) {
  const tag = 'Queues';
  const svc = services.queues;

  defineRoute(router, registry, { method: 'post', path: '/v1/queues', summary: 'Create a handoff queue with its business hours', tag, body: CreateQueueBodySchema, response: QueueSchema, status: 201 },
    ({ body, principal }) => svc.createQueue({ ...scopeOf(principal), ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/queues', summary: 'List handoff queues by name', tag, query: z.strictObject({}), response: listOf(QueueSchema, 'QueueList') },
    ({ principal }) => svc.listQueues(scopeOf(principal)));

  defineRoute(router, registry, { method: 'get', path: '/v1/queues/{id}', summary: 'Retrieve a queue', tag, params: IdParamsSchema, response: QueueSchema },
    ({ params, principal }) => svc.getQueue({ ...scopeOf(principal), queueId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/queues/{id}', summary: 'Update a queue (the fields given)', tag, params: IdParamsSchema, body: UpdateQueueBodySchema, response: QueueSchema },
    ({ params, body, principal }) => svc.updateQueue({ ...scopeOf(principal), queueId: params.id, ...body }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/queues/{id}', summary: 'Delete a queue (it is then always open)', tag, params: IdParamsSchema, response: DeletedSchema },
    ({ params, principal }) => svc.deleteQueue({ ...scopeOf(principal), queueId: params.id }));
}
