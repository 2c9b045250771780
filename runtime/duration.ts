// A length of time as operators write one: a whole number and a unit, `90s`, `30m`, `24h`, `7d`
// (FULL_BUILD_EVERY and the webhook variables, `keys roll --grace`, `keys create --expires`). Each
// caller decides which lengths it takes and how its message names a refused one.
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+)(s|m|h|d)$/;

/** The milliseconds `text` names, or undefined when it is no duration (or one too long to count in milliseconds exactly). */
export function parseDurationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) ? ms : undefined;
}
