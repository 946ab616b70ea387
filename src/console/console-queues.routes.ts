import type { Response, Router } from 'express';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import { AppError } from '../domain/errors';
import { emptyQueueForm, queuesPage, queueToForm, type QueueForm } from './views/queues.view';
import type { QueuesService } from '../conversations/queues.service';
import type { InboxService } from '../conversations/inbox.service';
import { WEEKDAYS } from '../conversations/business-hours';
import { scopeOf } from '../domain/principal';
import { CreateQueueBodySchema, UpdateQueueBodySchema } from '../conversations/queue.schemas';

/** The queue form as posted (strings as typed). */
function readQueueForm(body: Record<string, unknown>, id?: string): QueueForm {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    id,
    name: str(body.name).trim(),
    time_zone: str(body.time_zone).trim(),
    always_open: str(body.always_open) === '1',
    days: Object.fromEntries(WEEKDAYS.map((d) => [d, str(body[`day_${d}`])])),
    holidays: str(body.holidays),
    teammate_ids: (Array.isArray(body.teammate_ids) ? body.teammate_ids : [body.teammate_ids]).filter((v): v is string => typeof v === 'string' && v !== ''),
  };
}

/** The form as the queues API takes it: intervals split on commas, holidays one per line. */
function queueInputOf(form: QueueForm) {
  const list = (text: string, sep: RegExp) => text.split(sep).map((s) => s.trim()).filter(Boolean);
  return {
    name: form.name,
    time_zone: form.time_zone,
    weekly_hours: form.always_open ? null : Object.fromEntries(WEEKDAYS.map((d) => [d, list(form.days[d] ?? '', /,/).map((i) => i.replace(/\s+/g, ''))])),
    holidays: list(form.holidays, /\r?\n/),
    teammate_ids: form.teammate_ids,
  };
}
/** Queues and their business hours (the API's /v1/queues as a form). */
export function registerConsoleQueueRoutes(router: Router, { services }: ConsoleDeps<{ queues: QueuesService; inbox: InboxService }>) {
  async function renderQueues(res: Response, form?: QueueForm, error?: string) {
    const { session } = sessionOf(res);
    const [queues, teammates] = await Promise.all([services.queues.listQueues(scopeOf(session)).then((l) => l.data), services.inbox.teammates({ accountId: session.accountId })]);
    const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    sendPage(res, { title: 'Queues', active: 'inbox', status: error ? 422 : undefined, body: queuesPage({ queues, form: form ?? emptyQueueForm(), csrf: session.csrfToken, error, zones, teammates }) });
  }

  router.get('/queues', page(async (req, res) => {
    const { session } = sessionOf(res);
    const edit = typeof req.query.edit === 'string' ? await services.queues.getQueue({ ...scopeOf(session), queueId: req.query.edit }) : undefined;
    await renderQueues(res, edit && queueToForm(edit));
  }));

  /** Saves the queue the form describes; a bad value shows the form again, as typed, with the API's message. */
  async function saveQueue(res: Response, form: QueueForm, save: (input: ReturnType<typeof queueInputOf>) => Promise<unknown>) {
    const input = queueInputOf(form);
    const parsed = (form.id ? UpdateQueueBodySchema : CreateQueueBodySchema).safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return renderQueues(res, form, `${issue.path.join('.') || 'queue'}: ${issue.message}`);
    }
    try {
      await save(input);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return renderQueues(res, form, err.message);
    }
    res.redirect(303, '/console/queues');
  }

  router.post('/queues', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = readQueueForm(req.body as Record<string, unknown>);
    await saveQueue(res, form, (input) => services.queues.createQueue({ ...scopeOf(session), ...input }));
  }));

  router.post('/queues/:id', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = readQueueForm(req.body as Record<string, unknown>, idOf(req));
    await saveQueue(res, form, (input) => services.queues.updateQueue({ ...scopeOf(session), queueId: idOf(req), ...input }));
  }));

  router.post('/queues/:id/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.queues.deleteQueue({ ...scopeOf(session), queueId: idOf(req) });
    res.redirect(303, '/console/queues');
  }));
}

