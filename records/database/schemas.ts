// Where the relations live when nothing says otherwise, defined once: bin/config.ts applies these
// to unset variables, and openPlatformDatabase (sql.ts) falls back to them when called without
// one. A module with no imports, so reading the configuration loads nothing heavy.

/** PLATFORM_SCHEMA: the schema holding the platform relations (docs/platform.md). */
export const DEFAULT_PLATFORM_SCHEMA = 'public';

/** MARQUEE_SCHEMA: the schema holding Marquee's own relations, apart from the platform's (records/schema/). */
export const DEFAULT_MARQUEE_SCHEMA = 'marquee';
