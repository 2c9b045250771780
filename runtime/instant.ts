// An instant as operators write one (`show --at`, `keys create --expires`, the admin API's `at`
// and `expiresAt`): ISO 8601 with a zone. A bare local time is refused, because its meaning would
// depend on the machine that reads it.
const ZONED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** The instant `text` names, or undefined when it is not an ISO 8601 instant with a zone. */
export function parseZonedInstant(text: string): Date | undefined {
  const trimmed = text.trim();
  if (!ZONED_INSTANT.test(trimmed)) return undefined;
  const at = new Date(trimmed);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

export const ZONED_INSTANT_EXAMPLE = '2026-03-01T12:00:00Z';
