import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findImportCycles } from '../../scripts/import-cycles';

const root = path.resolve(__dirname, '../..');
const consoleDir = path.join(root, 'src/console');

describe('console layout', () => {
  it('has no import circle through a src/console file', () => {
    assert.deepEqual(findImportCycles(root, ['src/console']), []);
  });

  it('keeps HTML templates in views/ only (routes and helpers hold none)', () => {
    const outside = fs
      .readdirSync(consoleDir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => fs.readFileSync(path.join(consoleDir, f), 'utf8').includes('html`'));
    assert.deepEqual(outside, []);
  });
});
