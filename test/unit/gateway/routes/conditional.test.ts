import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches } from '../../../../gateway/routes/conditional.ts';

const TAG = '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8';

describe('ifNoneMatchMatches (RFC 9110 §13.1.2)', () => {
  it.each([
    ['the tag', `"${TAG}"`],
    ['the weak form of the tag (weak comparison)', `W/"${TAG}"`],
    ['a list containing the tag', `"other", "${TAG}"`],
    ['a list without spaces', `"other",W/"${TAG}"`],
    ['a list with empty members', ` , "other",, "${TAG}" ,`],
    ['*', '*'],
    ['* with whitespace', ' * '],
  ])('matches %s', (_, header) => {
    expect(ifNoneMatchMatches(header, TAG)).toBe(true);
  });

  it.each([
    ['another tag', '"other"'],
    ['the tag without quotes', TAG],
    ['the tag with a lower-case weak prefix', `w/"${TAG}"`],
    ['a list with a malformed member', `"${TAG}", garbage`],
    ['an unterminated quote', `"${TAG}`],
    ['an empty header', ''],
    ['a prefix of the tag', `"${TAG.slice(0, 10)}"`],
  ])('does not match %s', (_, header) => {
    expect(ifNoneMatchMatches(header, TAG)).toBe(false);
  });

  it('reads commas inside quoted tags as part of the tag', () => {
    expect(ifNoneMatchMatches('"a,b"', 'a,b')).toBe(true);
    expect(ifNoneMatchMatches('"a,b"', 'a')).toBe(false);
  });

  it('matches any list that contains the tag among arbitrary other tags, in any position', () => {
    const opaque = fc.stringMatching(/^[\x21\x23-\x7e]{0,20}$/);
    fc.assert(
      fc.property(fc.array(opaque, { maxLength: 5 }), fc.nat(5), fc.boolean(), (others, at, weak) => {
        const members = others.map((tag) => `"${tag}"`);
        members.splice(Math.min(at, members.length), 0, `${weak ? 'W/' : ''}"${TAG}"`);
        expect(ifNoneMatchMatches(members.join(', '), TAG)).toBe(true);
      }),
    );
  });

  it('never throws and never matches a header that does not quote the tag', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        const matched = ifNoneMatchMatches(header, TAG);
        if (!header.includes(`"${TAG}"`) && header.trim() !== '*') expect(matched).toBe(false);
      }),
    );
  });
});
