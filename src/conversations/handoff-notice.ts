import { businessHoursAt, formatOpening, type BusinessHours } from './business-hours';

/** The placeholder an after-hours notice may hold: when the queue opens again ("Monday at 09:00"). */
export const BACK_AT = '{{back_at}}';

/** The notices the service sends when an agent's config has none for the customer's language. */
export const DEFAULT_HANDOFF_NOTICES: Record<string, { open: string; afterHours: string; afterHoursNoTime: string }> = {
  en: {
    open: 'Thanks — a member of our team will reply here.',
    afterHours: `Thanks — our team is away right now; we're back ${BACK_AT} and will reply here.`,
    afterHoursNoTime: "Thanks — our team is away right now; we'll reply here as soon as we're back.",
  },
  de: {
    open: 'Danke — jemand aus unserem Team antwortet Ihnen hier.',
    afterHours: `Danke — unser Team ist gerade nicht da; wir sind ${BACK_AT} zurück und antworten Ihnen hier.`,
    afterHoursNoTime: 'Danke — unser Team ist gerade nicht da; wir antworten Ihnen hier, sobald wir zurück sind.',
  },
  fr: {
    open: "Merci — un membre de notre équipe va vous répondre ici.",
    afterHours: `Merci — notre équipe est absente pour le moment ; nous serons de retour ${BACK_AT} et vous répondrons ici.`,
    afterHoursNoTime: 'Merci — notre équipe est absente pour le moment ; nous vous répondrons ici dès notre retour.',
  },
  es: {
    open: 'Gracias — una persona de nuestro equipo te responderá aquí.',
    afterHours: `Gracias — nuestro equipo no está disponible ahora; volvemos el ${BACK_AT} y te responderemos aquí.`,
    afterHoursNoTime: 'Gracias — nuestro equipo no está disponible ahora; te responderemos aquí en cuanto volvamos.',
  },
};

/** An agent's own notices by locale (`handoff.notice`, `handoff.notice_after_hours`). */
export interface AgentNotices {
  notice?: Record<string, string>;
  notice_after_hours?: Record<string, string>;
}

/** `fr-CA` → the entry for `fr-CA`, else `fr`, else undefined (keys compared case-insensitively). */
function byLocale<T>(table: Record<string, T> | undefined, locale: string): { locale: string; value: T } | undefined {
  if (!table) return undefined;
  const entries = Object.entries(table);
  const want = locale.toLowerCase();
  const exact = entries.find(([k]) => k.toLowerCase() === want);
  if (exact) return { locale: exact[0], value: exact[1] };
  const lang = want.split(/[-_]/)[0]!;
  const same = entries.find(([k]) => k.toLowerCase() === lang) ?? entries.find(([k]) => k.toLowerCase().split(/[-_]/)[0] === lang);
  return same ? { locale: same[0], value: same[1] } : undefined;
}

/**
 * The handoff notice a customer gets: the agent's text for the customer's locale (else for the agent's
 * first locale), else the service's default in that language (en, de, fr, es; English otherwise). Outside
 * the queue's business hours, the after-hours text, with `{{back_at}}` replaced by the next opening in
 * the queue's time zone ("Monday at 09:00"). Pure: the caller gives the clock.
 */
export function composeHandoffNotice(input: {
  agent: AgentNotices;
  /** The conversation's `customer.locale`, when known. */
  customerLocale?: string;
  /** The agent's locales, first one preferred. */
  agentLocales: string[];
  /** The queue's hours; undefined: no queue configured (always open). */
  hours?: BusinessHours;
  now: Date;
}): { content: string; afterHours: boolean; locale: string } {
  const wanted = [input.customerLocale, ...input.agentLocales].filter((l): l is string => typeof l === 'string' && l.length > 0);
  const state = input.hours ? businessHoursAt(input.hours, input.now) : ({ open: true } as const);
  const afterHours = !state.open;
  const own = afterHours ? input.agent.notice_after_hours : input.agent.notice;
  for (const locale of wanted) {
    const found = byLocale(own, locale);
    if (found) return { content: fill(found.value, found.locale), afterHours, locale: found.locale };
  }
  for (const locale of [...wanted, 'en']) {
    const found = byLocale(DEFAULT_HANDOFF_NOTICES, locale);
    if (!found) continue;
    const text = !afterHours ? found.value.open : state.opensAt ? found.value.afterHours : found.value.afterHoursNoTime;
    return { content: fill(text, found.locale), afterHours, locale: found.locale };
  }
  throw new Error('unreachable: English has a default notice');

  function fill(text: string, locale: string): string {
    if (!text.includes(BACK_AT)) return text;
    const when = !state.open && state.opensAt && input.hours ? formatOpening(state.opensAt, input.now, input.hours, locale) : '';
    return text.split(BACK_AT).join(when).replace(/\s{2,}/g, ' ').trim();
  }
}
