import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readmeSections } from '../support/readme-blocks';

const fence = '```';

describe('README shell blocks (the README test\'s parser)', () => {
  it('takes sh and bash blocks by section, with their line and marker, and leaves other fences alone', () => {
    const markdown = [
      '## One',
      `${fence}sh`,
      'echo one',
      fence,
      '<!-- readme-test: skip (starts the service) -->',
      '',
      `${fence}bash`,
      'npm start',
      fence,
      '### Two',
      `${fence}json`,
      '## not a heading inside a fence',
      fence,
      '<!-- readme-test: background -->',
      `${fence}sh`,
      'node server.js',
      fence,
    ].join('\n');
    assert.deepEqual(readmeSections(markdown), [
      { heading: 'One', blocks: [{ line: 2, code: 'echo one', mode: 'run' }, { line: 7, code: 'npm start', mode: 'skip' }] },
      { heading: 'Two', blocks: [{ line: 15, code: 'node server.js', mode: 'background' }] },
    ]);
  });

  it('refuses an unknown marker or a skip without its reason, so a typo never skips a block', () => {
    assert.throws(() => readmeSections(['## A', '<!-- readme-test: skp (why) -->', `${fence}sh`, 'x', fence].join('\n')), /unknown marker/);
    assert.throws(() => readmeSections(['## A', '<!-- readme-test: skip -->', `${fence}sh`, 'x', fence].join('\n')), /unknown marker/);
    assert.throws(() => readmeSections(['## A', `${fence}sh`, 'x'].join('\n')), /never closed/);
  });
});
