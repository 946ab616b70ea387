import { z } from '../../domain/api-schema';
import type { RouteDeps } from '../../http/route-deps';
import { DOMAIN_NAME_PATTERN, MAX_DOMAIN_LENGTH, type EmailDomainsService } from './email-domains.service';
import { defineRoute } from '../../http/route';
import { DeletedSchema, IdParamsSchema, listOf, PageQuerySchema } from '../../http/schemas';
import { scopeOf } from '../../domain/principal';
import { EmailDomainSchema } from './email.schemas';

const CreateEmailDomainBodySchema = z.strictObject({
  domain: z.string().min(3).max(MAX_DOMAIN_LENGTH).regex(DOMAIN_NAME_PATTERN).describe('a domain you own, such as acme.example: its addresses (and its subdomains\') can send and receive live mail once verified'),
});

/** The domains an account proves it owns, by a DNS TXT record the service checks. */
export function registerEmailDomainRoutes({ router, registry, services }: RouteDeps<{ emailDomains: EmailDomainsService }>) {
  const tag = 'Email';
  const svc = services.emailDomains;

  defineRoute(router, registry, { method: 'post', path: '/v1/email_domains', summary: 'Add an email domain (then publish its TXT record and verify it)', tag, body: CreateEmailDomainBodySchema, response: EmailDomainSchema, status: 201 },
    ({ body, principal }) => svc.addDomain({ ...scopeOf(principal), domain: body.domain }));

  defineRoute(router, registry, { method: 'get', path: '/v1/email_domains', summary: "List the account's email domains", tag, query: PageQuerySchema, response: listOf(EmailDomainSchema, 'EmailDomainList') },
    ({ query, principal }) => svc.listDomainPage({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/email_domains/{id}', summary: 'Retrieve an email domain, with the DNS records to publish', tag, params: IdParamsSchema, response: EmailDomainSchema },
    ({ params, principal }) => svc.getDomain({ ...scopeOf(principal), emailDomainId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/email_domains/{id}/verify', summary: "Check the domain's DNS records (422 domain_not_verified while the ownership record is missing)", tag, params: IdParamsSchema, response: EmailDomainSchema },
    ({ params, principal }) => svc.verifyDomain({ ...scopeOf(principal), emailDomainId: params.id }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/email_domains/{id}', summary: 'Delete an email domain (live mail to and from its addresses stops)', tag, params: IdParamsSchema, response: DeletedSchema },
    ({ params, principal }) => svc.deleteDomain({ ...scopeOf(principal), emailDomainId: params.id }));
}
