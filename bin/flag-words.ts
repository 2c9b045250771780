// The CLI's words for an operator's mistake in one field (docs/design.md "Admin API and console"): operations name the field of their input (`origins[0]: "x" is not an origin…`,
// runtime/errors.ts OperatorError.field), as the admin API and the console answer them; the CLI
// alone says it with the flag the operator typed (`--origin "x" is not an origin…`).
import { describeError, OperatorError } from '../runtime/errors.ts';

/** Each field an operation may name, as the commands that take it spell its flag. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  origins: '--origin',
  expiresAt: '--expires',
};

/** The error's line as the CLI prints it: describeError's, with a field the CLI has a flag for named by that flag. */
export function cliErrorLine(error: unknown): string {
  if (error instanceof OperatorError && error.field !== undefined) {
    // `origins[2]`: the flag is repeated, one value each, so the value quoted says which.
    const flag = FLAG_OF_FIELD[error.field.replace(/\[\d+\]$/, '')];
    if (flag !== undefined) return describeError(new OperatorError(`${flag} ${error.problem}`, error.cause === undefined ? {} : { cause: error.cause }));
  }
  return describeError(error);
}
