// Which request ids the gateway takes from a request, and what it makes otherwise.
import { describe, expect, it } from 'vitest';
import { requestIdFor } from '../../../gateway/request-id.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFor', () => {
  it.each(['a', 'abc-123', 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6', 'trace.id_1:2-3', 'Root=1-67891233-abcdef012345678912345678'.replaceAll('=', ':'), 'x'.repeat(128)])(
    'takes a sane id as sent: %s',
    (sent) => {
      expect(requestIdFor(sent)).toBe(sent);
    },
  );

  it.each([
    ['nothing sent', undefined],
    ['empty', ''],
    ['129 characters', 'x'.repeat(129)],
    ['a space', 'a b'],
    ['a header injection', 'abc\r\nSet-Cookie: x=1'],
    ['a repeated header joined by Node', 'abc, def'],
    ['markup', '<script>alert(1)</script>'],
    ['a fragment breaker', 'abc#def'],
    ['non-ASCII', 'idé'],
    ['a key-looking query', 'a?key=mqk_secret'],
    ['an API key', 'mqk_4f9Kx2LmQ8rT1vZ7yB3nW6pD0sH5jC9aEbXk2L'],
    ['an API key in capitals', 'trace-MQK_4f9Kx2LmQ8rT1vZ7yB3nW6pD0sH5jC'],
    ['an array', ['abc', 'def']],
  ] as const)('replaces %s with a new random UUID, never echoing it', (_, sent) => {
    const id = requestIdFor(sent as string | string[] | undefined);
    expect(id).toMatch(UUID);
    expect(id).not.toBe(sent);
  });

  it('makes a different id each time', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => requestIdFor(undefined)));
    expect(ids.size).toBe(1000);
  });
});
