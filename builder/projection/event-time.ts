// Instants of one event, all on the venue's clock: the event's own times, its registration
// window and its sessions use the event's IANA zone (DESIGN.md "Instant format"). Bad data is a
// ProjectionError that names the event, so the builder can say which one blocks the snapshot.
import type { EventRow } from '../platform/rows.ts';
import type { Instant } from '../../snapshot/resources.ts';
import { ProjectionError } from './errors.ts';
import { zoneClock, type ZoneClock } from './instant.ts';

export interface EventTime {
  /** `what` names the value in an error, e.g. `startsAt` or `session {id} endsAt`. */
  instant(utc: string, what: string): Instant;
}

export function eventTime(event: EventRow): EventTime {
  const clock = clockOf(event);
  return {
    instant(utc, what) {
      try {
        return clock.instant(utc);
      } catch (cause) {
        throw new ProjectionError(`event ${describe(event)}: ${what} ${JSON.stringify(utc)} is not a valid date-time`, { cause });
      }
    },
  };
}

function clockOf(event: EventRow): ZoneClock {
  try {
    return zoneClock(event.timeZone);
  } catch (cause) {
    throw new ProjectionError(
      `event ${describe(event)}: time zone ${JSON.stringify(event.timeZone)} is not an IANA time zone this runtime knows`,
      { cause },
    );
  }
}

const describe = (event: EventRow): string => `${event.id} (${JSON.stringify(event.slug)})`;
