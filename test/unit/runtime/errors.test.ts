import { describe, expect, it } from 'vitest';
import { describeError, EXIT_USAGE, OperatorError } from '../../../runtime/errors.ts';

describe('describeError', () => {
  it('prints every cause below the error on one line', () => {
    const disk = Object.assign(new Error("EACCES: permission denied, open 'x'"), { code: 'EACCES' });
    const error = new Error('publish failed', { cause: new Error('write refused', { cause: disk }) });
    expect(describeError(error)).toBe("publish failed: write refused: EACCES: permission denied, open 'x'");
  });

  it('does not repeat a cause the message already quotes, and names a message-less error by its code', () => {
    const refused = Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' });
    expect(describeError(new Error('cannot connect (db:5432): ECONNREFUSED', { cause: refused }))).toBe('cannot connect (db:5432): ECONNREFUSED');
    expect(describeError(new Error('cannot connect', { cause: refused }))).toBe('cannot connect: ECONNREFUSED');
  });

  it('survives causes that are not errors, and cycles', () => {
    expect(describeError(new Error('failed', { cause: 'timeout' }))).toBe('failed: timeout');
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(describeError(b)).toBe('b: a');
    expect(describeError('plain')).toBe('plain');
  });
});

describe('OperatorError', () => {
  it('carries its exit status (1 unless told), and its cause', () => {
    expect(new OperatorError('no organization "x"').exitCode).toBe(1);
    const error = new OperatorError('bad configuration', { exitCode: EXIT_USAGE, cause: new Error('why') });
    expect(error).toMatchObject({ exitCode: 2, message: 'bad configuration', cause: new Error('why') });
  });
});
