/**
 * Standard SMS keywords (CTIA / carrier practice). A message whose whole body, trimmed and
 * case-folded, is one of these words (trailing punctuation ignored) updates consent or asks for help.
 */
export type KeywordAction = 'opt_out' | 'opt_out_all' | 'opt_in' | 'help';

const KEYWORDS: Record<string, KeywordAction> = {
  STOP: 'opt_out',
  UNSUBSCRIBE: 'opt_out',
  CANCEL: 'opt_out',
  END: 'opt_out',
  QUIT: 'opt_out',
  STOPALL: 'opt_out_all',
  START: 'opt_in',
  UNSTOP: 'opt_in',
  YES: 'opt_in',
  HELP: 'help',
  INFO: 'help',
};

export function classifyKeyword(body: string): { keyword: string; action: KeywordAction } | null {
  const word = body.trim().replace(/[.!?]+$/, '').toUpperCase();
  const action = KEYWORDS[word];
  return action ? { keyword: word, action } : null;
}

export const OPT_OUT_REPLY = 'You have been unsubscribed and will receive no more messages from this number. Reply START to resubscribe.';
export const OPT_IN_REPLY = 'You have been resubscribed and will receive messages from this number again. Reply STOP to unsubscribe.';
