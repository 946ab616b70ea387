import { z } from '../domain/api-schema';
import { defineRoute } from '../http/route';
import type { RouteDeps } from '../http/route-deps';
import { DeletedSchema, IdParamsSchema, listOf } from '../http/schemas';
import { scopeOf } from '../domain/principal';
import { CreateSavedReplyBodySchema, SavedReplySchema, UpdateSavedReplyBodySchema } from './saved-reply.schemas';
import type { SavedRepliesService } from './saved-replies.service';

/** Saved replies of the account (per mode): texts with variables the console's reply box inserts. */
export function registerSavedReplyRoutes({ router, registry, services }: RouteDeps<{ savedReplies: SavedRepliesService }>) {
  const tag = 'Saved replies';
  const svc = services.savedReplies;

  defineRoute(router, registry, { method: 'post', path: '/v1/saved_replies', summary: 'Create a saved reply', tag, body: CreateSavedReplyBodySchema, response: SavedReplySchema, status: 201 },
    ({ body, principal }) => svc.createSavedReply({ ...scopeOf(principal), ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/saved_replies', summary: 'List saved replies by name', tag, query: z.strictObject({}), response: listOf(SavedReplySchema, 'SavedReplyList') },
    ({ principal }) => svc.listSavedReplies(scopeOf(principal)));

  defineRoute(router, registry, { method: 'get', path: '/v1/saved_replies/{id}', summary: 'Retrieve a saved reply', tag, params: IdParamsSchema, response: SavedReplySchema },
    ({ params, principal }) => svc.getSavedReply({ ...scopeOf(principal), savedReplyId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/saved_replies/{id}', summary: 'Update a saved reply (the fields given)', tag, params: IdParamsSchema, body: UpdateSavedReplyBodySchema, response: SavedReplySchema },
    ({ params, body, principal }) => svc.updateSavedReply({ ...scopeOf(principal), savedReplyId: params.id, ...body }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/saved_replies/{id}', summary: 'Delete a saved reply', tag, params: IdParamsSchema, response: DeletedSchema },
    ({ params, principal }) => svc.deleteSavedReply({ ...scopeOf(principal), savedReplyId: params.id }));
}
