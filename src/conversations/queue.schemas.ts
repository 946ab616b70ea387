import { UNPROCESSABLE, z } from '../domain/api-schema';
import type { QueueRow } from './queue.repo';
import { isTimeZone, parseInterval, WEEKDAYS } from './business-hours';

const IntervalSchema = z
  .string()
  .regex(/^([01]\d|2[0-4]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$/, 'an interval "HH:MM-HH:MM" in 24-hour time')
  .refine((s) => parseInterval(s) !== undefined, UNPROCESSABLE('an interval "HH:MM-HH:MM" in 24-hour time, closing after it opens (24:00 closes at midnight)'));
const DayHoursSchema = z.array(IntervalSchema).max(6).describe('open intervals of the day; an empty list: closed');

export const WeeklyHoursSchema = z
  .strictObject(Object.fromEntries(WEEKDAYS.map((d) => [d, DayHoursSchema.optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<typeof DayHoursSchema>>)
  .describe('hours per weekday (mon…sun) in the queue\'s time zone; a day left out is closed');

const HolidaySchema = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'a date YYYY-MM-DD');
const TimeZoneSchema = z.string().min(1).max(64).refine(isTimeZone, UNPROCESSABLE('an IANA time zone such as Europe/Paris')).describe('IANA time zone of the hours and holidays');

export const QueueNameSchema = z.string().trim().min(1).max(120).describe("the name agents hand off to (an agent's handoff.default_queue)");

export const CreateQueueBodySchema = z.strictObject({
  name: QueueNameSchema,
  time_zone: TimeZoneSchema,
  weekly_hours: WeeklyHoursSchema.nullable().optional().describe('null or absent: always open'),
  holidays: z.array(HolidaySchema).max(366).optional().describe('local dates closed all day'),
  teammate_ids: z.array(z.string().min(1).max(64)).max(100).optional()
    .describe("the console teammates (cu_ ids) of the queue: team emails about its handoffs go to them (the assignee's first); empty or absent: every teammate"),
});
export const UpdateQueueBodySchema = CreateQueueBodySchema.partial();

export const QueueSchema = z
  .object({
    id: z.string().describe('que_ prefix'),
    object: z.literal('queue'),
    livemode: z.boolean(),
    name: z.string(),
    time_zone: z.string(),
    weekly_hours: z.record(z.string(), z.array(z.string())).nullable().describe('null: always open'),
    holidays: z.array(z.string()),
    teammate_ids: z.array(z.string()).describe('the queue\'s teammates (cu_ ids), by id; empty: team emails go to every teammate'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Queue');
export type QueueObject = z.infer<typeof QueueSchema>;

export const toQueueObject = (q: QueueRow, teammateIds: string[]): QueueObject => ({
  id: q.id,
  object: 'queue',
  livemode: q.livemode,
  name: q.name,
  time_zone: q.time_zone,
  weekly_hours: q.weekly_hours as QueueObject['weekly_hours'],
  holidays: q.holidays,
  teammate_ids: teammateIds,
  created_at: q.created_at.toISOString(),
  updated_at: q.updated_at.toISOString(),
});
