import { defineRoute } from '../http/route';
import { IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import type { RouteDeps } from '../app/route-deps';
import { PhoneNumberSchema } from './phone-number.schemas';
import { scopeOf } from '../domain/principal';

/** Read-only: numbers are provisioned by operators (`npm run cli -- numbers add`) or in the console. */
export function registerPhoneNumberRoutes({ router, registry, services }: RouteDeps) {
  const tag = 'SMS';
  const svc = services.phoneNumbers;

  defineRoute(router, registry, { method: 'get', path: '/v1/phone_numbers', summary: "List the account's phone numbers", tag, query: PageQuerySchema, response: listOf(PhoneNumberSchema, 'PhoneNumberList') },
    ({ query, principal }) => svc.listPhoneNumbers({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/phone_numbers/{id}', summary: 'Retrieve a phone number', tag, params: IdParamsSchema, response: PhoneNumberSchema },
    ({ params, principal }) => svc.getPhoneNumber({ ...scopeOf(principal), phoneNumberId: params.id }));
}
