// A wrong command line found by a command itself rather than by commander: exit status 2, and
// bin/cli.ts prints the command's usage line after the message, as for commander's own refusals
// (docs/operation.md). Beside bin/cli/, which loads the commands, so that they need not import it.
import { EXIT_USAGE, OperatorError } from '../runtime/errors.ts';
import { cliErrorLine } from './flag-words.ts';

/**
 * A wrong command line that only the command can see once it is parsed: options that contradict
 * each other, or none of those it needs. Exit status 2, and the command's usage line after the
 * message (bin/cli.ts), as for the refusals commander makes itself.
 */
export class UsageError extends OperatorError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, { exitCode: EXIT_USAGE });
  }
}

/**
 * A check of the command line's values that needs a command's own modules (loaded only when it
 * runs: its parser is no place to import them): what it refuses is a UsageError.
 */
export function usageChecked<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof OperatorError && !(error instanceof UsageError)) throw new UsageError(cliErrorLine(error));
    throw error;
  }
}
