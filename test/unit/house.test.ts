import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { surveyHouse } from '../../scripts/house-arrows';
import { HOUSE, roomOf, UPWARD_ALLOWED } from '../../scripts/house.mjs';

const root = path.resolve(__dirname, '../..');

describe('the house (areas stacked bottom to top, scripts/house.mjs)', () => {
  const survey = surveyHouse(root);

  it('has no import running back up from a lower area to a higher one, but the few allowed with a reason', () => {
    assert.deepEqual(survey.arrowsUp.filter((a) => !a.why).map((a) => `${a.from} -> ${a.to}`), []);
    assert.ok(survey.arrowsUp.length <= 5, `${survey.arrowsUp.length} arrows up (at most 5)`);
    for (const allowed of UPWARD_ALLOWED) assert.ok(allowed.why.length > 20, `${allowed.from} says why`);
  });

  it('has no file below src/app importing src/app', () => {
    assert.deepEqual(survey.arrowsUp.filter((a) => a.toRoom === 'app').map((a) => a.from), []);
  });

  it('has no circle between files', () => {
    assert.deepEqual(survey.fileCircles, []);
  });

  it('gives every folder of src/, and activities/ and workflows/, a room', () => {
    const folders = fs.readdirSync(path.join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'types');
    const homeless = [...folders.map((e) => `src/${e.name}/x.ts`), 'activities/x.ts', 'workflows/x.ts', 'workflows/shared/x.ts'].filter((f) => !roomOf(f));
    assert.deepEqual(homeless, []);
    assert.equal(new Set(HOUSE.map((r) => r.room)).size, HOUSE.length);
  });

  it("is shown in the README's Layout section room by room, bottom to top, as scripts/house.mjs lists it", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout\n'));
    const block = layout.slice(layout.indexOf('```\n') + 4, layout.indexOf('\n\n', layout.indexOf('```\n')));
    const rooms = block
      .split('\n')
      .filter((line) => /^\S/.test(line))
      .map((line) => line.split(/\s+/)[0]!.replace('*', '').replace(/\/$/, ''))
      .map((entry) => roomOf(entry.endsWith('.ts') ? entry : `${entry}/x.ts`)?.room ?? `(no room: ${entry})`)
      .filter((room, i, all) => room !== all[i - 1]);
    assert.deepEqual(rooms, HOUSE.map((r) => r.room));
  });

  it('fails lint on an import from a lower area into a higher one, `import type` too', async () => {
    const eslint = new ESLint({ cwd: root });
    const [result] = await eslint.lintText(
      "import type { Services } from '../app/container';\nimport { SmsReplyChannel } from '../channels/sms/sms-reply.channel';\nimport { AppError } from '../domain/errors';\nexport const used = [SmsReplyChannel, AppError] as unknown as Services;\n",
      { filePath: path.join(root, 'src/sms/lint-probe.ts') },
    );
    const upward = result!.messages.filter((m) => m.ruleId === 'house/no-upward-import').map((m) => m.line);
    assert.deepEqual(upward, [1, 2]);
  });
});
