import type { Response, Router } from 'express';
import { z } from 'zod';
import { AppError } from '../domain/errors';
import { scopeOf } from '../domain/principal';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { AgentsService } from '../agents/agents.service';
import type { CallsService } from '../channels/voice/calls.service';
import type { EmailAddressesService } from '../channels/email/email-addresses.service';
import type { EmailDomainsService } from '../channels/email/email-domains.service';
import type { EmailsService } from '../channels/email/emails.service';
import type { PhoneNumbersService } from '../numbers/phone-numbers.service';
import { callsPage, emailAddressesPage } from './views/channels.view';

const AddAddressSchema = z.object({ address: z.string().trim().default(''), display_name: z.string().trim().max(120).default(''), agent_id: z.string().default('') });
const AttachSchema = z.object({ agent_id: z.string().default('') });
const AddDomainSchema = z.object({ domain: z.string().trim().max(253).default('') });

/** The services these console pages use. */
interface ConsoleChannelServices { agents: AgentsService; calls: CallsService; emailAddresses: EmailAddressesService; emailDomains: EmailDomainsService; emails: EmailsService; phoneNumbers: PhoneNumbersService }

/** The channels' objects that only the CLI could reach before: email addresses and calls. */
export function registerConsoleChannelRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleChannelServices>) {
  // Banners come from fixed texts chosen by a code in the query (never the query's own text).
  const EMAIL_NOTICES = new Map([
    ['added', 'The address is registered.'],
    ['attached', 'The address is answered by the agent now.'],
    ['detached', 'The address has no agent now: mail to it is ignored.'],
    ['deleted', 'The address is deleted.'],
    ['domain_added', 'The domain is added: publish its TXT record, then verify it.'],
    ['domain_verified', 'The domain is verified.'],
    ['domain_deleted', 'The domain is deleted: live mail to and from its addresses stops.'],
  ]);

  async function renderEmail(res: Response, extra: { notice?: string; error?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const [addresses, agents, domains] = await Promise.all([
      services.emailAddresses.listAddressPage({ ...scopeOf(session), page: { limit: 100 } }),
      services.agents.listAgents({ ...scopeOf(session), page: { limit: 100 } }),
      services.emailDomains.listDomainPage({ ...scopeOf(session), page: { limit: 100 } }),
    ]);
    // Test mode: the sandbox's latest emails, with what each says.
    const sandbox =
      session.mode === 'test'
        ? await Promise.all((await services.emails.listEmailPage({ ...scopeOf(session), page: { limit: 20 }, direction: 'outbound' })).data.map((e) => services.emails.getEmail({ ...scopeOf(session), emailId: e.id })))
        : undefined;
    sendPage(res, {
      title: 'Email',
      active: 'email',
      ...extra,
      body: emailAddressesPage({ addresses: addresses.data, agents: agents.data, domains: domains.data, sandbox, smtpConfigured: config.email.smtp !== undefined, csrf: session.csrfToken }),
    });
  }

  /** Runs a change and redirects with its notice, or shows the page again with the refusal's message. */
  const change = (res: Response, fn: () => Promise<string>) =>
    fn().then(
      (done) => res.redirect(303, `/console/email?done=${done}`),
      async (err: unknown) => {
        if (!(err instanceof AppError)) throw err;
        await renderEmail(res, { error: err.message, status: err.status === 404 ? 404 : 422 });
      },
    );

  router.get('/email', page(async (req, res) => renderEmail(res, { notice: EMAIL_NOTICES.get(String(req.query.done)) })));

  router.post('/email', page(async (req, res) => {
    const body = AddAddressSchema.parse(req.body);
    await change(res, async () => {
      await services.emailAddresses.addAddress({ ...scopeOf(sessionOf(res).session), address: body.address, displayName: body.display_name || undefined, agentId: body.agent_id || undefined });
      return 'added';
    });
  }));

  router.post('/email/:id/agent', page(async (req, res) => {
    const body = AttachSchema.parse(req.body);
    await change(res, async () => {
      const e = await services.emailAddresses.updateAddress({ ...scopeOf(sessionOf(res).session), emailAddressId: idOf(req), agentId: body.agent_id || null });
      return e.agent_id ? 'attached' : 'detached';
    });
  }));

  router.post('/email/:id/delete', page(async (req, res) => {
    await change(res, async () => {
      await services.emailAddresses.deleteAddress({ ...scopeOf(sessionOf(res).session), emailAddressId: idOf(req) });
      return 'deleted';
    });
  }));

  router.post('/email/domains', page(async (req, res) => {
    const body = AddDomainSchema.parse(req.body);
    await change(res, async () => {
      await services.emailDomains.addDomain({ ...scopeOf(sessionOf(res).session), domain: body.domain });
      return 'domain_added';
    });
  }));

  router.post('/email/domains/:id/verify', page(async (req, res) => {
    await change(res, async () => {
      await services.emailDomains.verifyDomain({ ...scopeOf(sessionOf(res).session), emailDomainId: idOf(req) });
      return 'domain_verified';
    });
  }));

  router.post('/email/domains/:id/delete', page(async (req, res) => {
    await change(res, async () => {
      await services.emailDomains.deleteDomain({ ...scopeOf(sessionOf(res).session), emailDomainId: idOf(req) });
      return 'domain_deleted';
    });
  }));

  router.get('/calls', page(async (_req, res) => {
    const { session } = sessionOf(res);
    const [calls, numbers] = await Promise.all([
      services.calls.listCalls({ ...scopeOf(session), page: { limit: 100 } }),
      services.phoneNumbers.listPhoneNumbers({ ...scopeOf(session), page: { limit: 100 } }),
    ]);
    sendPage(res, { title: 'Calls', active: 'calls', body: callsPage({ calls: calls.data, numbers: new Map(numbers.data.map((n) => [n.id, n.number])) }) });
  }));
}
