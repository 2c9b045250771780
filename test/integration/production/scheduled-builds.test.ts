// Two `marquee builder` processes on one PostgreSQL and one Redis, with a schedule every 3 seconds:
// each period's scheduled build is run by one of them, not by both (docs/design.md "Runs divided among builders"). Every builder's schedule fires at every period; the one that does not run it
// logs "another builder runs it" with the period's instant. So within the window watched, every
// period has exactly one such line across the two builders: none would mean both ran it. And each
// run builds what changed: nothing here but the rolling verification's share (FULL_BUILD_EVERY of
// 12 s over a 3-second period is a quarter of the four organizations per run).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type MarqueeProcess, type ProductionWorld, startProductionWorld } from '../../support/production.ts';

const EVERY_SECONDS = 3;
let world: ProductionWorld;
let builders: MarqueeProcess[];

beforeAll(async () => {
  world = await startProductionWorld();
  const schedule = { BUILD_SCHEDULE: `*/${EVERY_SECONDS} * * * * *`, FULL_BUILD_EVERY: `${4 * EVERY_SECONDS}s` };
  builders = [await world.builder({ ...schedule, BUILDER_NAME: 'builder-a' }), await world.builder({ ...schedule, BUILDER_NAME: 'builder-b' })];
});

afterAll(async () => {
  await world?.stop();
});

interface LogLine {
  time: string;
  message: string;
  slot?: string;
  trigger?: string;
  organizations?: number;
  skipped?: number;
  built?: number;
  verified?: number;
}

const linesOf = (builder: MarqueeProcess): LogLine[] =>
  builder
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

it('runs each period once for the fleet: one builder runs it, the other says so', async () => {
  const from = Date.now() + 1_000;
  await new Promise((resolve) => setTimeout(resolve, 5 * EVERY_SECONDS * 1_000));
  const to = Date.now() - 1_000;
  // The periods wholly inside the window, as the expression matches them.
  const periods: string[] = [];
  for (let at = Math.ceil(from / (EVERY_SECONDS * 1_000)) * EVERY_SECONDS * 1_000; at <= to; at += EVERY_SECONDS * 1_000) periods.push(new Date(at).toISOString());
  expect(periods.length).toBeGreaterThanOrEqual(4);

  const skipped = builders.map((builder) =>
    linesOf(builder)
      .filter((line) => / another builder runs it$/.test(line.message))
      .map((line) => line.slot),
  );
  for (const period of periods) {
    expect(
      skipped.filter((slots) => slots.includes(period)),
      `period ${period}`,
    ).toHaveLength(1);
  }
  const runs = builders.flatMap((builder) =>
    linesOf(builder).filter(
      (line) => /^schedule run over /.test(line.message) && line.time >= periods[0]! && line.time < new Date(Date.parse(periods.at(-1)!) + 2_000).toISOString(),
    ),
  );
  expect(runs).toHaveLength(periods.length);
  // Nothing changed: no run read an organization but those it verified, a quarter or more (more
  // when a run starts late enough that one more would outlive FULL_BUILD_EVERY before the next).
  for (const run of runs) {
    expect(run).toMatchObject({ organizations: 4, built: 0 });
    expect(run.verified).toBeGreaterThanOrEqual(1);
    expect(run.skipped! + run.verified!).toBe(4);
  }
});
