// The gateway's log: one JSON line per entry, so a stack trace stays one line in a log pipeline.
// Stack traces go here and never into a response (docs/api.md §7, gateway/problem.ts).

export type LogFields = Record<string, unknown>;

export interface GatewayLog {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export function jsonLinesLog(out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): GatewayLog {
  const line = (stream: NodeJS.WritableStream, level: string, message: string, fields: LogFields = {}): void => {
    stream.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  };
  return {
    info: (message, fields) => line(out, 'info', message, fields),
    warn: (message, fields) => line(err, 'warn', message, fields),
    error: (message, fields) => line(err, 'error', message, fields),
  };
}

/** The parts of an error worth logging, with its stack. */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) return { error: error.message, stack: error.stack };
  return { error: String(error) };
}
