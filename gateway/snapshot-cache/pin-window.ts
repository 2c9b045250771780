// The pin window's default (SNAPSHOT_PIN_SECONDS, docs/api.md §10): long enough for a site's build
// to read every page of a large organization at its rate limit, short enough to bound how long
// something hidden on the platform can still be read by a client that pinned a snapshot from
// before. A module of its own with no imports, so reading the configuration loads nothing else.
export const DEFAULT_PIN_WINDOW_MS = 600_000;
