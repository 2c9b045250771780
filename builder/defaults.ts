// The builder's settings when nothing says otherwise, defined once: bin/config.ts applies them to
// unset variables, and the builder's own entry points (openPlatformDatabase, seedSample) fall
// back to them when called without one. A small module with no imports, so reading the
// configuration loads nothing heavy.

/** PLATFORM_PUBLIC_URL: the base of `publicUrl` fields (and of the sample data's image urls). */
export const DEFAULT_PUBLIC_BASE_URL = 'https://events.example.com';
