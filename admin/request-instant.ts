// An instant as an admin request gives one (`expiresAt`, `at`): ISO 8601 with a zone, as the CLI
// takes it (runtime/instant.ts); anything else is the request's 400, naming the field.
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../runtime/instant.ts';
import { badRequest } from './errors.ts';

export function requestInstant(field: string, text: string): Date {
  const instant = parseZonedInstant(text);
  if (instant === undefined) throw badRequest(`${field} must be an ISO 8601 instant with a zone (e.g. ${ZONED_INSTANT_EXAMPLE}), got ${JSON.stringify(text)}`);
  return instant;
}
