// Instants as a person reads them on the console: "3 minutes ago", beside the exact ISO instant.

const UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

// Fixed to English and `numeric: 'always'` so a page reads the same on every server ("1 day ago", not "yesterday").
const FORMAT = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/** How long before (or after) `now` an instant is, in the largest whole unit: "3 minutes ago", "in 2 hours", "just now". */
export function humanizeAge(instant: Date, now: Date): string {
  const seconds = Math.round((instant.getTime() - now.getTime()) / 1000);
  // Clocks of two processes differ by a little; a few seconds either way is "now" to a reader.
  if (Math.abs(seconds) < 5) return 'just now';
  for (const [unit, size] of UNITS) {
    const whole = Math.trunc(seconds / size);
    if (whole !== 0) return FORMAT.format(whole, unit);
  }
  return 'just now';
}

/** An instant for a template: the text people read and the ISO value for `<time datetime>`; undefined stays undefined. */
export interface ShownInstant {
  iso: string;
  age: string;
}

export function showInstant(value: string | null | undefined, now: Date): ShownInstant | undefined {
  if (value === null || value === undefined) return undefined;
  const instant = new Date(value);
  if (Number.isNaN(instant.getTime())) return undefined;
  return { iso: instant.toISOString(), age: humanizeAge(instant, now) };
}
