// The slot of the schedule's current period: the latest instant at or before now that the
// BUILD_SCHEDULE expression matches, which is how node-cron names a period when it asks the
// fleet's claims who runs it (`<task name>:<instant>`, database-schedule-claims.ts). A builder's
// start-up run claims that same slot, so a builder starting in a period another builder already
// ran (or is running) does not run it again (docs/design.md "Production shape (many machines)": one scheduled run per
// period across the fleet, also at start).
import cron, { type ParsedFields } from 'node-cron';

/**
 * How far back a period's beginning is looked for. A schedule whose periods are longer (a yearly
 * expression, as the tests' fleets use so that no period comes during a test) has no slot within
 * it: its start-up runs are not claimed.
 */
const LOOKBACK_DAYS = 8;

/** The current period's slot of `expression` at `now` (local time, as node-cron reads an expression without a time zone). */
export function currentSlot(expression: string, now: Date): Date | undefined {
  // A task that is never started: node-cron's own matcher, so that day-of-month and day-of-week
  // rules, ranges and names mean here what they mean to the schedule.
  const task = cron.createTask(expression, () => {});
  try {
    return latestMatch(cron.parse(expression), (date) => task.match(date), now);
  } finally {
    void task.destroy();
  }
}

/**
 * The latest instant at or before `now` that `matches`, trying only the hours, minutes and
 * seconds the expression allows: day by day backwards, a day tried whole only when its first
 * allowed instant matches (the day-of-month, month and day-of-week fields are the day's).
 */
function latestMatch(fields: Pick<ParsedFields, 'hour' | 'minute' | 'second'>, matches: (date: Date) => boolean, now: Date): Date | undefined {
  const descending = (values: number[]) => [...values].sort((a, b) => b - a);
  const [hours, minutes, seconds] = [descending(fields.hour), descending(fields.minute), descending(fields.second)];
  for (let back = 0; back <= LOOKBACK_DAYS; back++) {
    const day = new Date(now.getFullYear(), now.getMonth(), now.getDate() - back);
    const at = (hour: number, minute: number, second: number) => new Date(day.getFullYear(), day.getMonth(), day.getDate(), hour, minute, second);
    if (!matches(at(hours.at(-1)!, minutes.at(-1)!, seconds.at(-1)!))) continue;
    for (const hour of hours) {
      // Hours after now today are skipped whole, without trying their minutes.
      if (at(hour, 0, 0) > now) continue;
      for (const minute of minutes) {
        for (const second of seconds) {
          const candidate = at(hour, minute, second);
          if (candidate <= now && matches(candidate)) return candidate;
        }
      }
    }
  }
  return undefined;
}
