/**
 * The optional one-line question after an agent's answer on SMS and email ("Did that answer your question?
 * Reply YES…", agent setting `resolution_question`), and what counts as the customer's yes to it
 * (docs/decisions/analytics-confirmed-by-reply.md). Pure.
 */

/** The service's questions when the agent's config has none for the customer's language. */
export const DEFAULT_RESOLUTION_QUESTIONS: Record<string, string> = {
  en: 'Did that answer your question? Reply YES if it did.',
  de: 'Hat das Ihre Frage beantwortet? Antworten Sie mit JA, wenn ja.',
  fr: "Cela a-t-il répondu à votre question ? Répondez OUI si c'est le cas.",
  es: '¿Hemos respondido a tu pregunta? Responde SI en ese caso.',
};

/** The channels the question is asked on (chat and the widget have a thumbs-up; a call has no written line). */
export const RESOLUTION_QUESTION_CHANNELS: readonly string[] = ['sms', 'email'];

export interface ResolutionQuestionSetting {
  enabled: boolean;
  /** The agent's own question by locale (`en`, `fr-CA`…); none: the service's default. */
  text?: Record<string, string>;
}

/** `fr-CA` → `fr-CA`, else `fr`, else any `fr-…` (keys compared case-insensitively). */
function byLocale(table: Record<string, string> | undefined, locale: string): string | undefined {
  if (!table) return undefined;
  const entries = Object.entries(table);
  const want = locale.toLowerCase();
  const lang = want.split(/[-_]/)[0]!;
  return (entries.find(([k]) => k.toLowerCase() === want) ?? entries.find(([k]) => k.toLowerCase() === lang) ?? entries.find(([k]) => k.toLowerCase().split(/[-_]/)[0] === lang))?.[1];
}

/**
 * The question for this customer: the agent's text for the customer's locale, else for the agent's locales in
 * order, else the service's default in those languages (en, de, fr, es), else English. Undefined when the
 * setting is off or the channel has no written line for it.
 */
export function resolutionQuestion(input: { setting?: ResolutionQuestionSetting; channel: string; customerLocale?: string; agentLocales: string[] }): string | undefined {
  if (!input.setting?.enabled || !RESOLUTION_QUESTION_CHANNELS.includes(input.channel)) return undefined;
  const wanted = [input.customerLocale, ...input.agentLocales].filter((l): l is string => typeof l === 'string' && l.length > 0);
  for (const locale of wanted) {
    const own = byLocale(input.setting.text, locale);
    if (own) return own;
  }
  for (const locale of [...wanted, 'en']) {
    const found = byLocale(DEFAULT_RESOLUTION_QUESTIONS, locale);
    if (found) return found;
  }
  return DEFAULT_RESOLUTION_QUESTIONS.en;
}

/** The answer as the customer gets it: the reply, a blank line, the question. */
export function withResolutionQuestion(reply: string, question: string | undefined): string {
  return question ? `${reply.trimEnd()}\n\n${question}` : reply;
}

/** A yes in en, de, fr or es, alone or with a thank-you ("yes thanks", "ja danke", "oui merci", "sí gracias"). */
const YES = new Set(['yes', 'y', 'yeah', 'yep', 'yup', 'sure', 'correct', 'it did', 'yes it did', 'ja', 'jap', 'jawohl', 'genau', 'ja hat es', 'oui', 'ouais', 'tout a fait', 'si', 'claro', 'si claro']);
const THANKS = ['thanks', 'thank you', 'thx', 'ty', 'danke', 'danke schon', 'vielen dank', 'merci', 'merci beaucoup', 'gracias', 'muchas gracias'];

/**
 * Whether a customer's reply is a plain yes (and nothing else to answer): case, accents, punctuation and
 * spacing ignored; at most a thank-you beside it. "Yes, but what about shipping?" is not one: the agent
 * answers it as a new question.
 */
export function isConfirmation(text: string): boolean {
  if (text.length > 60) return false;
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/👍[\u{1F3FB}-\u{1F3FF}]?/gu, ' 👍 ')
    .replace(/[^\p{L}\p{N}👍]+/gu, ' ')
    .trim();
  const thumbsUp = words.split(' ').includes('👍');
  let rest = words.split(' ').filter((w) => w !== '👍').join(' ');
  for (const t of THANKS) {
    if (rest === t) return thumbsUp;
    if (rest.endsWith(` ${t}`)) rest = rest.slice(0, -t.length - 1).trim();
    else if (rest.startsWith(`${t} `)) rest = rest.slice(t.length + 1).trim();
  }
  return rest === '' ? thumbsUp : YES.has(rest);
}

/** The conversation's `customer.locale`, when set. */
export function customerLocaleOf(conversation: { customer: unknown }): string | undefined {
  const locale = (conversation.customer as Record<string, unknown> | null)?.locale;
  return typeof locale === 'string' && locale.length > 0 ? locale : undefined;
}

/**
 * "----- Original Message -----" and the like: dashes, some text, dashes. Read with string tests, not a
 * regular expression with `.*` between two dash runs, which backtracks quadratically on a long line.
 */
function isSeparatorLine(line: string): boolean {
  const t = line.trim();
  return t.length >= 7 && t.startsWith('---') && t.endsWith('---');
}

/**
 * An email reply's own text, without the quoted history below it: cut at the first quoted line (`>`), an
 * "-----Original Message-----" separator or a signature (`-- `), then the attribution line(s) ending in ":"
 * just above ("On Tue, … wrote:", "Le … a écrit :", wrapped over two lines at most).
 */
export function ownReplyText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const cut = lines.findIndex((l) => /^\s*>/.test(l) || isSeparatorLine(l) || l === '-- ' || l === '--');
  const own = cut === -1 ? lines : lines.slice(0, cut);
  while (own.length > 0 && own[own.length - 1]!.trim() === '') own.pop();
  if (cut !== -1) {
    for (let k = 0; k < 2 && own.length > 0 && /:\s*$/.test(own[own.length - 1]!); k++) {
      own.pop();
      // An attribution wrapped over two lines: its first line does not end with ':'.
      if (k === 0 && own.length > 1 && own[own.length - 1]!.trim() !== '' && own[own.length - 2]!.trim() === '') own.pop();
    }
  }
  return own.join('\n').trim();
}
