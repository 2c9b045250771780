// Operations name the field at fault; the CLI alone says it with its flag (bin/flag-words.ts), so an
// HTTP client never reads `--origin` and a CLI user reads what they typed.
import { describe, expect, it } from 'vitest';
import { cliErrorLine } from '../../../bin/flag-words.ts';
import { KeyCommandError } from '../../../admin/keys/key-admin.ts';
import { OperatorError } from '../../../runtime/errors.ts';

describe("the CLI's line for an operator's mistake", () => {
  it('names a field it has a flag for by that flag, and leaves the message of every other door in field names', () => {
    const origin = new KeyCommandError('"not a url" is not an origin', { field: 'origins[1]' });
    expect(origin.message).toBe('origins[1]: "not a url" is not an origin');
    expect(cliErrorLine(origin)).toBe('--origin "not a url" is not an origin');
    const expiry = new KeyCommandError('2020-01-01T00:00:00.000Z is not in the future', { field: 'expiresAt' });
    expect(expiry.message).toBe('expiresAt: 2020-01-01T00:00:00.000Z is not in the future');
    expect(cliErrorLine(expiry)).toBe('--expires 2020-01-01T00:00:00.000Z is not in the future');
  });

  it('says a field without a flag, and any other error, as describeError does', () => {
    expect(cliErrorLine(new OperatorError('"x" is neither a snapshot id nor current', { field: 'from' }))).toBe('from: "x" is neither a snapshot id nor current');
    expect(cliErrorLine(new Error('outer', { cause: new Error('inner') }))).toBe('outer: inner');
  });
});
