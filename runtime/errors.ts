// Error text shared by the builder, the gateway and the CLI. Wrappers add context ("organization
// X: publish failed") and keep what went wrong underneath as their `cause`; an operator needs
// the whole chain, not only the top message.

/**
 * An error and every cause below it, on one line: `organization X: publish failed: EACCES:
 * permission denied, open '…'`. A cause whose text the line already holds is not repeated (a
 * wrapper often quotes its cause's reason).
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let current: unknown = error; current !== undefined && current !== null && !seen.has(current); current = causeOf(current)) {
    seen.add(current);
    const text = messageOf(current);
    if (text !== '' && !parts.some((part) => part.includes(text))) parts.push(text);
  }
  return parts.join(': ') || String(error);
}

function causeOf(error: unknown): unknown {
  return error instanceof Error ? error.cause : undefined;
}

/** Node reports some failures (a refused connection to every address of a host) with an empty message and a code. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return error.message || (typeof code === 'string' ? code : '') || error.name;
}

/** Exit statuses of bin/marquee. */
export const EXIT_FAILURE = 1;
/** The command line or the configuration is wrong: nothing was attempted. */
export const EXIT_USAGE = 2;

/**
 * A failure the operator can act on, with a message that says what to do: bad configuration, an
 * unknown organization, an embedded database in use by another process, a database that cannot
 * be reached, a snapshot that does not exist. bin/cli.ts prints it as one line, without a stack,
 * and exits with `exitCode`; anything else is unexpected and printed with its cause chain.
 */
export class OperatorError extends Error {
  override name = 'OperatorError';
  readonly exitCode: number;
  /**
   * The field of the operation's input at fault (`origins`, `expiresAt`), when one is: the message
   * is then `field: problem`, in the words of every door but the CLI, which alone says it with its
   * flag instead (`--origin problem`: bin/flag-words.ts). Operations speak in field names only.
   */
  readonly field: string | undefined;
  /** The message without the field's name. */
  readonly problem: string;

  constructor(message: string, options: { exitCode?: number; cause?: unknown; field?: string } = {}) {
    super(options.field === undefined ? message : `${options.field}: ${message}`, 'cause' in options ? { cause: options.cause } : undefined);
    this.exitCode = options.exitCode ?? EXIT_FAILURE;
    this.field = options.field;
    this.problem = message;
  }
}
