// node:test reporter that ends the run with the line CI reads: "N passed, N failed, N skipped".
// Suites (describe blocks) are not counted, only tests; a file that fails to load counts as one failure.
export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const data = event.data;
    if (data.details?.type === 'suite') {
      if (event.type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') failed++;
      continue;
    }
    if (data.skip || data.todo) skipped++;
    else if (event.type === 'test:pass') passed++;
    else failed++;
  }
  yield `\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`;
}
