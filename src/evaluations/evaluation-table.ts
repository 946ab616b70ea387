import type { EvaluationObject } from './evaluation.schemas';

const pad = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));

/** An evaluation as the CLI prints it: one line per case (result, latency, confidence, why it failed), then a summary. */
export function formatEvaluationTable(evaluation: EvaluationObject, agentName: string): string {
  const nameWidth = Math.min(48, Math.max(4, ...evaluation.cases.map((c) => c.name.length)));
  const lines = [`${agentName}: evaluation ${evaluation.id} of the draft`, ''];
  lines.push(`${pad('case', nameWidth)}  result  latency   conf.  failed expectation`);
  for (const c of evaluation.cases) {
    const failure = c.failures[0];
    const why = failure ? `turn ${failure.turn} ${failure.expectation}: ${failure.reason}` : '';
    const more = c.failures.length > 1 ? ` (+${c.failures.length - 1} more)` : '';
    const compared = c.comparison === 'regression' ? ' [regression]' : c.comparison === 'fix' ? ' [fix]' : '';
    lines.push(`${pad(c.name, nameWidth)}  ${c.passed ? 'pass  ' : 'FAIL  '}  ${`${c.latency_ms} ms`.padStart(8)}  ${c.confidence === null ? '   - ' : c.confidence.toFixed(2).padStart(5)}  ${why}${more}${compared}`.trimEnd());
  }
  lines.push('', `${evaluation.passed_count} of ${evaluation.case_count} passed${evaluation.comparison?.baseline_version ? `; against version ${evaluation.comparison.baseline_version}: ${evaluation.comparison.regressions.length} regressions, ${evaluation.comparison.fixes.length} fixes` : ''}`);
  return lines.join('\n');
}
