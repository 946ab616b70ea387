import type { AgentObject } from '../../agents/agent.schemas';
import type { KnowledgeGapObject, KnowledgeGapReportObject } from '../../knowledge/knowledge-gaps.schemas';
import { html, type Html } from '../../platform/html';
import { csrfField } from './layout';
import { scorePercent } from './run.view';

/** The periods the Gaps page offers (days back from now). */
export const GAP_PERIODS = [7, 14, 30] as const;

const counts = (c: Record<string, number>) => Object.entries(c).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(' · ');

const TREND_WORDS: Record<KnowledgeGapObject['trend'], string> = { new: 'new this period', rising: 'rising', steady: 'steady', falling: 'falling' };
/** The trend in words and an arrow (never colour alone). */
const trend = (g: KnowledgeGapObject) =>
  html`<span class="tag" title="${g.previous_period_questions} in the previous period">${g.trend === 'rising' ? '↑ ' : g.trend === 'falling' ? '↓ ' : ''}${TREND_WORDS[g.trend]} (${g.previous_period_questions} before)</span>`;

function gapCard(agentId: string, days: number, g: KnowledgeGapObject): Html {
  return html`<section class="card gap" data-gap-id="${g.id}">
    <h2>${g.examples[0]?.text ?? g.id}</h2>
    <p><strong data-gap-conversations>${g.conversations} ${g.conversations === 1 ? 'conversation' : 'conversations'}</strong> · ${g.questions} ${g.questions === 1 ? 'question' : 'questions'} ${trend(g)}</p>
    <ul class="gap-examples">${g.examples.map((e) => html`<li>“${e.text}” <span class="muted">${e.channel} · ${e.language}</span></li>`)}</ul>
    <p class="muted">Channels: ${counts(g.channels)} — Languages: ${counts(g.languages)} — Reasons: ${counts(g.reasons).replace(/_/g, ' ')}</p>
    ${g.near_miss ? html`<p class="muted">Nearest passage: “${g.near_miss.title}” at ${scorePercent(g.near_miss.score)}: ${g.near_miss.snippet.slice(0, 160)}</p>` : html`<p class="muted">No passage came near.</p>`}
    ${g.human_reply ? html`<blockquote class="gap-reply"><span class="muted">A teammate replied:</span> ${g.human_reply.text}</blockquote>` : ''}
    <a class="button primary" href="/console/agents/${agentId}/gaps/${g.id}/answer?days=${days}">Write an answer</a>
  </section>`;
}

/** An agent's knowledge gaps: the unanswered questions of the period, grouped by meaning, most conversations first. */
export function gapsPage(input: { agent: AgentObject; report: KnowledgeGapReportObject; days: number }): Html {
  const { agent, report, days } = input;
  return html`<div class="page-head"><div><a href="/console/agents" class="muted">Agents</a> / <a href="/console/agents/${agent.id}">${agent.name}</a> /
    <h1>Knowledge gaps</h1></div>
    <div class="head-actions">${GAP_PERIODS.map((d) => html`<a class="button${d === days ? ' primary' : ''}" href="/console/agents/${agent.id}/gaps?days=${d}">Last ${d} days</a>`)}</div></div>
  <p class="muted">Questions the agent handed off because no passage supported an answer or its confidence was too low, grouped by meaning
    (${report.grouping.method === 'embeddings' ? `embedding model ${report.grouping.model}` : 'shared words'}), the most conversations first.
    ${report.questions} ${report.questions === 1 ? 'question' : 'questions'} in ${report.conversations} ${report.conversations === 1 ? 'conversation' : 'conversations'}; console tests and evaluations are left out.</p>
  ${report.grouping.note ? html`<p class="notice">${report.grouping.note}</p>` : ''}
  ${report.data.length ? report.data.map((g) => gapCard(agent.id, days, g)) : html`<p class="empty">No unanswered questions in the last ${days} days.</p>`}
  ${report.total_groups > report.data.length ? html`<p class="muted">${report.total_groups - report.data.length} smaller groups not shown.</p>` : ''}`;
}

export interface AnswerFormValues {
  title: string;
  content: string;
}

/** "Write an answer": a new knowledge record pre-filled with the gap's question and the teammate's reply. */
export function gapAnswerPage(input: {
  agent: AgentObject;
  gap: KnowledgeGapObject;
  days: number;
  csrf: string;
  values: AnswerFormValues;
  /** Where the record goes: the agent's record source, or the base a new record source will be created in. */
  target: { baseName: string; sourceId: string | null };
}): Html {
  const { agent, gap, days, values } = input;
  return html`<div class="page-head"><div><a href="/console/agents/${agent.id}">${agent.name}</a> / <a href="/console/agents/${agent.id}/gaps?days=${days}">Knowledge gaps</a> /
    <h1>Write an answer</h1></div></div>
  <p class="muted">Customers asked:</p><ul class="gap-examples">${gap.examples.map((e) => html`<li>“${e.text}”</li>`)}</ul>
  <form method="post" action="/console/agents/${agent.id}/gaps/${gap.id}/answer?days=${days}" class="card">${csrfField(input.csrf)}
    <p class="muted">${input.target.sourceId ? html`A new record in “${input.target.baseName}”.` : html`A new record source will be created in “${input.target.baseName}” for it.`}
      Once it is saved, the questions above are asked again through the agent, and you see how many it now answers.</p>
    <label>Title <input name="title" required maxlength="500" value="${values.title}"></label>
    <label>Answer <textarea name="content" required rows="6" maxlength="20000">${values.content}</textarea></label>
    <button class="button primary">Save and re-ask</button>
  </form>`;
}

/** After "Save and re-ask": each example question asked again, and whether the agent now answers it. */
export function gapCheckPage(input: {
  agent: AgentObject;
  days: number;
  recordUrl: string;
  results: { question: string; answered: boolean; reply: string | null; why: string | null }[];
}): Html {
  const answered = input.results.filter((r) => r.answered).length;
  return html`<div class="page-head"><div><a href="/console/agents/${input.agent.id}">${input.agent.name}</a> / <a href="/console/agents/${input.agent.id}/gaps?days=${input.days}">Knowledge gaps</a> /
    <h1>Answer saved</h1></div></div>
  <p class="notice" data-gap-answered="${answered}" data-gap-asked="${input.results.length}"><strong>${answered} of ${input.results.length}</strong> example questions are now answered by the agent.
    <a href="${input.recordUrl}">See the record</a></p>
  <table class="list"><thead><tr><th>Question</th><th>Now</th></tr></thead><tbody>
  ${input.results.map((r) => html`<tr><td>“${r.question}”</td><td>${r.answered ? html`<span class="badge badge-ready">✓ answered</span> ${r.reply ?? ''}` : html`<span class="badge badge-failed">✗ not answered</span> <span class="muted">${r.why ?? ''}</span>`}</td></tr>`)}
  </tbody></table>`;
}
