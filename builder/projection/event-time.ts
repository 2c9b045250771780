// Instants of one event, all on the venue's clock: the event's own times, its registration
// window and its sessions use the event's IANA zone (docs/design.md "Instant format"). Bad data is a
// BuildError of the `project` stage naming the organization and the event, so the builder can
// report which one blocks the snapshot and keep the previous one.
import type { EventRow } from '../platform/rows.ts';
import type { Instant } from '../../snapshot/schema-types.ts';
import { resourcePath } from '../../snapshot/resource-catalog.ts';
import { BuildError } from '../errors.ts';
import { zoneClock, type ZoneClock } from './instant.ts';

export interface EventTime {
  /** `what` names the value in an error, e.g. `startsAt` or `session {id} endsAt`. */
  instant(utc: string, what: string): Instant;
}

export function eventTime(event: EventRow, organizationId: string): EventTime {
  const fail = (reason: string, cause: unknown): BuildError =>
    new BuildError('project', organizationId, `organization ${organizationId}: event ${event.id} (${JSON.stringify(event.slug)}): ${reason}`, {
      resource: resourcePath.event(event.id),
      cause,
    });
  let clock: ZoneClock;
  try {
    clock = zoneClock(event.timeZone);
  } catch (cause) {
    throw fail(`time zone ${JSON.stringify(event.timeZone)} is not an IANA time zone this runtime knows`, cause);
  }
  return {
    instant(utc, what) {
      try {
        return clock.instant(utc);
      } catch (cause) {
        throw fail(`${what} ${JSON.stringify(utc)} is not a valid date-time`, cause);
      }
    },
  };
}
