import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { businessHoursAt, parseInterval, type BusinessHours } from '../../src/conversations/business-hours';
import { composeHandoffNotice } from '../../src/conversations/handoff-notice';

const weekdays = (interval: string) => ({ mon: [interval], tue: [interval], wed: [interval], thu: [interval], fri: [interval] });
const paris: BusinessHours = { timeZone: 'Europe/Paris', weekly: weekdays('09:00-17:00'), holidays: ['2026-12-25'] };

describe('business hours', () => {
  it('reads intervals strictly', () => {
    assert.deepEqual(parseInterval('09:00-17:30'), { open: 540, close: 1050 });
    assert.deepEqual(parseInterval('00:00-24:00'), { open: 0, close: 1440 });
    for (const bad of ['17:00-09:00', '9:00-17:00', '09:00-09:00', '09:00-24:30', '25:00-26:00', '09:00 - 17:00']) assert.equal(parseInterval(bad), undefined, bad);
  });

  it("is open inside the hours in the queue's zone, closed outside, and names the next opening past a holiday and the weekend", () => {
    assert.deepEqual(businessHoursAt(paris, new Date('2026-12-23T08:30:00Z')), { open: true }); // Wed 09:30 Paris
    const beforeOpening = businessHoursAt(paris, new Date('2026-12-23T07:30:00Z')); // Wed 08:30 Paris
    assert.deepEqual(beforeOpening, { open: false, opensAt: new Date('2026-12-23T08:00:00Z') });
    // Thursday 24th 18:00: Friday the 25th is a holiday, then the weekend: Monday 28th 09:00 Paris.
    assert.deepEqual(businessHoursAt(paris, new Date('2026-12-24T17:00:00Z')), { open: false, opensAt: new Date('2026-12-28T08:00:00Z') });
    assert.deepEqual(businessHoursAt({ ...paris, weekly: null }, new Date('2026-12-25T12:00:00Z')), { open: true });
    assert.deepEqual(businessHoursAt({ ...paris, weekly: {} }, new Date('2026-12-25T12:00:00Z')), { open: false });
  });

  it('follows daylight saving time: 09:00 in New York is 14:00 UTC in winter and 13:00 UTC in summer', () => {
    const ny: BusinessHours = { timeZone: 'America/New_York', weekly: weekdays('09:00-17:00'), holidays: [] };
    // Saturday 7 March 2026 (EST) → Monday 9 March, after the switch to EDT on the 8th.
    assert.deepEqual(businessHoursAt(ny, new Date('2026-03-07T15:00:00Z')), { open: false, opensAt: new Date('2026-03-09T13:00:00Z') });
    assert.deepEqual(businessHoursAt(ny, new Date('2026-01-10T15:00:00Z')), { open: false, opensAt: new Date('2026-01-12T14:00:00Z') });
  });

  it('says a far opening with its date, and falls back to English for a language without a default', () => {
    const longBreak: BusinessHours = { timeZone: 'UTC', weekly: { mon: ['09:00-17:00'] }, holidays: ['2027-01-04'] };
    const far = composeHandoffNotice({ agent: {}, agentLocales: ['en'], hours: longBreak, now: new Date('2026-12-29T12:00:00Z') });
    assert.equal(far.content, "Thanks — our team is away right now; we're back Monday, January 11 at 09:00 and will reply here.");
    const ja = composeHandoffNotice({ agent: {}, customerLocale: 'ja', agentLocales: ['ja'], now: new Date() });
    assert.deepEqual([ja.content, ja.locale], ['Thanks — a member of our team will reply here.', 'en']);
  });
});
