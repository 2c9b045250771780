// The types of the module's pure exports, for the unit tests (the module itself is plain JavaScript, served as it is).
interface Instant {
  utc: string;
  local: string;
  timeZoneId: string;
}
interface Timed {
  start: Instant;
  end: Instant;
  room: string | null;
}
export function messageFor(errorCode: string | undefined, retryAfterSeconds?: string | null): string;
export function localDay(instant: Instant): string;
export function byDay<T extends Timed>(sessions: T[]): Array<{ day: string; sessions: T[] }>;
export function byTier<T extends { tier: string | null }>(sponsors: T[]): Array<{ tier: string | null; sponsors: T[] }>;
export function scheduleGrid<T extends Timed>(sessions: T[]): { rooms: Array<string | null>; rows: string[]; placed: Array<{ session: T; column: number; row: number; span: number }> };
interface Place {
  venueName: string | null;
  address?: string | null;
  city: string | null;
  country: string | null;
}
interface Described extends Place {
  name: string;
  description: string | null;
  start: Instant;
  end: Instant;
  publicUrl: string;
  speakers?: Array<{ name: string }>;
}
export function placeLine(event: Place): string;
export function eventJsonLd(event: Described, organization: { name: string; website: string | null; publicUrl: string }): Record<string, unknown>;
export function calendarFile(
  item: { id: string; name: string; description: string | null; location: string | null; start: Instant; end: Instant; url: string | null },
  context: { host: string; now: number },
): string;
