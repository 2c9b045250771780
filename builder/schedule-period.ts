// How long a build schedule's period is (BUILD_SCHEDULE, a cron expression), for what is derived
// from it: how old an unbuilt change may get before its snapshot counts as stale (fleet-figures.ts).
import cron from 'node-cron';

/** How many of the schedule's next runs are looked at: enough for a schedule whose gaps differ (`0 9,17 * * *`). */
const RUNS_LOOKED_AT = 12;

/** The longest gap between two of the schedule's next runs, in milliseconds. */
export function schedulePeriodMs(expression: string): number {
  // Created, never started: a task that is only asked for its next runs.
  const task = cron.createTask(expression, () => {});
  try {
    const runs = task.getNextRuns(RUNS_LOOKED_AT).map((run) => run.getTime());
    let longest = 0;
    for (let i = 1; i < runs.length; i++) longest = Math.max(longest, runs[i]! - runs[i - 1]!);
    return longest;
  } finally {
    void task.destroy();
  }
}
