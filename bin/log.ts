// The log of a long-running marquee process (start, serve, builder): runtime/log.ts implemented
// once, with pino, and injected into the gateway and the builder's runner, so one process writes
// one kind of line. JSON lines by default, for log pipelines:
//
//   {"level":"warn","time":"2026-11-22T10:00:00.123Z","component":"builder","trigger":"change",…,"message":"build failed: …"}
//
// and readable lines on a terminal or with LOG_FORMAT=pretty (bin/config.ts):
//
//   [10:00:00.123] WARN: builder: build failed: … {"trigger":"change",…}
//
// Lines go to stdout, written synchronously: none is lost when the process exits, and they keep
// their order with the plain lines a command prints on purpose (start's demo key and curl line).
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { Log, LogFields } from '../runtime/log.ts';
import type { LogFormat } from './config/variables.ts';

/** A log whose lines can carry fields of their own, e.g. `{ component: 'gateway' }`. */
export interface ProcessLog extends Log {
  child(fields: LogFields): ProcessLog;
}

/**
 * Field names that could hold a secret are censored wherever they appear at the top level or one
 * level down: nothing logs a key on purpose, and this keeps a mistake from publishing one.
 */
const SECRET_FIELDS = ['key', 'secret', 'apiKey', 'token', 'password', 'authorization'];

export interface LogOptions {
  format: LogFormat;
  /** A file descriptor (default 1, stdout) or a stream (tests). */
  destination?: number | NodeJS.WritableStream;
}

export async function createLog({ format, destination = 1 }: LogOptions): Promise<ProcessLog> {
  const options: LoggerOptions = {
    // No pid or hostname on every line: one process writes this log.
    base: undefined,
    messageKey: 'message',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: SECRET_FIELDS.flatMap((name) => [name, `*.${name}`]), censor: '[redacted]' },
  };
  return wrap(pino(options, format === 'pretty' ? await prettyStream(destination) : jsonStream(destination)));
}

function jsonStream(destination: number | NodeJS.WritableStream) {
  return typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
}

/** Loaded only when asked for: most processes write JSON. */
async function prettyStream(destination: number | NodeJS.WritableStream) {
  const { default: pretty } = await import('pino-pretty');
  const terminal = typeof destination === 'number' && destination === 1 && process.stdout.isTTY === true;
  return pretty({
    destination,
    sync: true,
    colorize: terminal,
    messageKey: 'message',
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: '{if component}{component}: {end}{message}',
    ignore: 'component',
    singleLine: true,
  });
}

function wrap(logger: Logger): ProcessLog {
  return {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
    child: (fields) => wrap(logger.child(fields)),
  };
}
