// What a configuration variable takes (bin/config/variables.ts): how its text, trimmed and not
// blank, becomes a value or a refusal whose message names the variable, and how the docs write a
// value (a default) the way an operator would set it.
import { isIP } from 'node:net';
import { parseTrustProxy, type TrustProxy } from '../../gateway/access/client-address.ts';
import { parseDurationMs } from '../../runtime/duration.ts';
import { isHttpUrl } from '../../runtime/http-url.ts';
import { CODINGS, type Coding } from '../../snapshot/codings.ts';

/** Why a variable's text is not what it takes: one line, starting with the variable's name. */
export class Refusal {
  constructor(readonly message: string) {}
}

export interface Kind<T> {
  /** `raw`: the text as the environment holds it, untrimmed, for the one message that quotes it so. */
  parse(text: string, name: string, raw: string): T | Refusal;
  /** A value as an operator writes it (docs/configuration.md's defaults). */
  show(value: T): string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const MB = 1024 * 1024;
const UNITS = [
  ['d', DAY_MS],
  ['h', 60 * 60 * 1000],
  ['m', 60 * 1000],
  ['s', 1000],
] as const;
const got = (value: string): string => `got ${JSON.stringify(value)}`;

/** The text as it is. */
export const text: Kind<string> = { parse: (value) => value, show: (value) => value };

/**
 * Text that `test` accepts; otherwise `NAME must MUST`, with the text quoted after it unless
 * `quote` is false (a URL that may hold a password, a token).
 */
export function checked(test: (value: string) => boolean, must: string, { quote = true } = {}): Kind<string> {
  return {
    parse: (value, name) => (test(value) ? value : new Refusal(`${name} must ${must}${quote ? `, ${got(value)}` : ''}`)),
    show: (value) => value,
  };
}

/** One of `choices`, as they are written. */
export function oneOf<T extends string>(choices: readonly T[]): Kind<T> {
  const listed = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  return {
    parse: (value, name) => choices.find((choice) => choice === value) ?? new Refusal(`${name} must be ${listed}, ${got(value)}`),
    show: (value) => value,
  };
}

/**
 * An absolute http(s) URL, trailing slashes dropped (a base that paths are added to). `quoted`:
 * which text a refusal quotes: the variable's as given, or the base (trimmed, without trailing slashes).
 */
export function httpBase(quoted: 'given' | 'base'): Kind<string> {
  return {
    parse(value, name, raw) {
      const base = value.replace(/\/+$/, '');
      return isHttpUrl(base) ? base : new Refusal(`${name} must be an absolute http(s) URL, got ${JSON.stringify(quoted === 'given' ? raw : base)}`);
    },
    show: (value) => value,
  };
}

export const port: Kind<number> = {
  parse: (value, name) => (/^\d+$/.test(value) && Number(value) <= 65535 ? Number(value) : new Refusal(`${name} must be a TCP port number (0-65535), ${got(value)}`)),
  show: String,
};

/** Seconds, fractions allowed, above 0 and at most an hour; in milliseconds. */
export const seconds: Kind<number> = {
  parse(value, name) {
    if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0 || Number(value) > 3600)
      return new Refusal(`${name} must be a number of seconds above 0 and at most 3600, ${got(value)}`);
    return Math.round(Number(value) * 1000);
  },
  show: (ms) => String(ms / 1000),
};

/**
 * A whole number from `min` to 1,000,000 (and, when `atMost` says so, no more than that, refused
 * with its own message), times `unit`: 1000 for seconds kept in milliseconds.
 */
export function wholeNumber(min: number, { atMost, unit = 1 }: { atMost?: number; unit?: number } = {}): Kind<number> {
  return {
    parse(value, name) {
      if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > 1_000_000) return new Refusal(`${name} must be a whole number from ${min} to 1000000, ${got(value)}`);
      if (atMost !== undefined && Number(value) > atMost) return new Refusal(`${name} must be at most ${atMost}, got ${Number(value)}`);
      return Number(value) * unit;
    },
    show: (value) => String(value / unit),
  };
}

/** A whole number of megabytes (MiB) from `minMb` to 1,000,000; in bytes. */
export function megabytes(minMb: number): Kind<number> {
  return {
    parse(value, name) {
      if (!/^\d+$/.test(value) || Number(value) < minMb || Number(value) > 1_000_000)
        return new Refusal(`${name} must be a whole number of megabytes from ${minMb} to 1000000, ${got(value)}`);
      return Number(value) * MB;
    },
    show: (bytes) => String(bytes / MB),
  };
}

/** `1`: on; `0` (or unset): off. */
export const flag: Kind<boolean> = {
  parse(value, name) {
    if (value === '1' || value === '0') return value === '1';
    return new Refusal(`${name} must be 1 (on) or 0 (off), ${got(value)}`);
  },
  show: (on) => (on ? '1' : '0'),
};

/** A duration (runtime/duration.ts) of at least a second and at most 365 days, as every duration variable takes. */
function configDurationMs(value: string): number | undefined {
  const ms = parseDurationMs(value);
  return ms === undefined || ms < 1000 || ms > 365 * DAY_MS ? undefined : ms;
}

/** `24h` for 86,400,000: the largest unit that counts it whole. */
function showDuration(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0) ?? ['s', 1000];
  return `${ms / size}${unit}`;
}

/** A duration from 1s to 365d; in milliseconds. */
export const duration: Kind<number> = {
  parse: (value, name) => configDurationMs(value) ?? new Refusal(`${name} must be a whole number followed by s, m, h or d (e.g. 24h), from 1s to 365d, ${got(value)}`),
  show: showDuration,
};

/** Up to 20 durations separated by commas (WEBHOOK_RETRY_SCHEDULE: the delay before each retry). */
export const durations: Kind<readonly number[]> = {
  parse(value, name) {
    const items = value.split(',').map((item) => configDurationMs(item.trim()));
    if (items.length > 20 || items.some((ms) => ms === undefined)) {
      return new Refusal(`${name} must be up to 20 durations separated by commas, each a whole number followed by s, m, h or d (e.g. 5s,5m,30m), ${got(value)}`);
    }
    return items as number[];
  },
  show: (list) => list.map(showDuration).join(','),
};

/**
 * SNAPSHOT_CODINGS: gzip alone (the default, STORED_CODINGS), both codings (brotli's forms are
 * smaller, for twice the full build's CPU), or none. Not brotli alone: every client that accepts br
 * accepts gzip too, not the other way round, so it would leave the gzip-only clients without a
 * stored form.
 */
const CODING_CHOICES: ReadonlyMap<string, readonly Coding[]> = new Map<string, readonly Coding[]>([
  [CODINGS.join(','), CODINGS],
  ['gzip', ['gzip']],
  ['none', []],
]);

export const codings: Kind<readonly Coding[]> = {
  parse(given, name) {
    const value = given.replace(/\s*,\s*/g, ',');
    const choices = [...CODING_CHOICES.keys()].map((choice) => JSON.stringify(choice));
    return (
      CODING_CHOICES.get(value) ??
      new Refusal(`${name} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)} (the compressed forms a build stores beside each object), ${got(value)}`)
    );
  },
  show: (list) => (list.length === 0 ? 'none' : list.join(',')),
};

/** Dot-separated labels of letters, digits and inner hyphens (RFC 1123), 253 characters at most. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * An IP address (an IPv6 one with or without its brackets, given without them) or a host name, as
 * listen() takes it; whether this machine has it is known only when the gateway binds it.
 */
export const listenHost: Kind<string> = {
  parse(value, name) {
    const unbracketed = value.replace(/^\[(.*)\]$/, '$1');
    if (isIP(unbracketed) !== 0 || HOST_NAME.test(value)) return unbracketed;
    return new Refusal(`${name} must be an IP address or a host name (127.0.0.1, 0.0.0.0, ::1, ::, localhost), ${got(value)}`);
  },
  show: (value) => value,
};

/** Proxies whose X-Forwarded-For names the client, as gateway/access/client-address.ts reads them. */
export const trustProxy: Kind<TrustProxy> = {
  parse(value, name) {
    const parsed = parseTrustProxy(value);
    return parsed.ok ? parsed.value : new Refusal(`${name}: ${parsed.problem}`);
  },
  show: (value) => (value === false ? 'none' : String(value)),
};
