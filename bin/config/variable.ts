// One configuration variable as the table (bin/config/variables.ts) declares it: what it takes,
// what stands in when it is unset, which processes read it and what the docs say of it. Data
// only: bin/config.ts reads the environment through it, scripts/config-docs.ts writes
// docs/configuration.md from it.
import type { Kind } from './kinds.ts';

/**
 * Which processes read a variable: `gateway` (serve, and start's gateway), `builder` (builder,
 * build, start, and every other command, which runs where builders do, with their environment:
 * deploy/builder.env).
 */
export type Role = 'gateway' | 'builder';

interface About {
  roles: readonly Role[];
  /** What it chooses, in the docs' Markdown (links relative to docs/). */
  doc: string;
  /** The default as the docs say it, where the fallback alone does not (unset, or made of other settings). */
  default?: string;
}

/** Read by parseConfig (bin/config.ts), with every other one, through its kind; `fallback` stands in when it is unset or bad. */
export interface Setting<T, F extends T | undefined = T | undefined> extends About {
  kind: Kind<T>;
  fallback: F;
}

/** Read where it is used, not by parseConfig: `readBy` is the module, and a test holds the code to it. */
export interface External extends About {
  readBy: string;
}

export function setting<T, F extends T | undefined>(kind: Kind<T>, fallback: F, about: About): Setting<T, F> {
  return { kind, fallback, ...about };
}

export function external(readBy: string, about: About): External {
  return { readBy, ...about };
}

/** The table with each entry's name, its key, in it too. */
export function named<T extends Record<string, Setting<unknown> | External>>(table: T): { [K in keyof T]: T[K] & { name: K } } {
  return Object.fromEntries(Object.entries(table).map(([name, variable]) => [name, { ...variable, name }])) as unknown as { [K in keyof T]: T[K] & { name: K } };
}
