// docs/design.md's CORS and Vary decisions list the methods and headers the gateway allows, exposes
// and varies on; they are what gateway/access/cors.ts sends, so a header added to the code (or the
// docs) without the other fails here.
import { describe, expect, it } from 'vitest';
import type { Response } from 'express';
import { answerPreflight } from '../../../gateway/access/cors.ts';
import { readGuide, rowOf, sectionOf } from './docs-files.ts';

const decisions = sectionOf(readGuide('docs/design.md'), 'Where the contract is silent — decided here');

/** The comma-separated list in the first code span after `lead` in `text`. */
function listAfter(text: string, lead: string): string[] {
  const match = new RegExp(`${lead}\\s*\`([^\`]+)\``).exec(text);
  if (match === null) throw new Error(`no list after "${lead}" in: ${text}`);
  return match[1]!.split(',').map((item) => item.trim());
}

/** The headers of a preflight's answer, as the gateway writes them. */
function preflightHeaders(): Map<string, string> {
  let written: string[] = [];
  const res = {
    writeHead(_status: number, headers: string[]) {
      written = headers;
      return { end() {} };
    },
  };
  answerPreflight(res as unknown as Response);
  const headers = new Map<string, string>();
  for (let i = 0; i < written.length; i += 2) headers.set(written[i]!, written[i + 1]!);
  return headers;
}

const split = (value: string | undefined): string[] => (value ?? '').split(',').map((item) => item.trim());

describe("design.md's CORS lists", () => {
  const cors = rowOf(decisions, 'CORS');
  const sent = preflightHeaders();

  it('allow the methods the gateway allows', () => {
    expect(listAfter(cors, 'allowing')).toEqual(split(sent.get('Access-Control-Allow-Methods')));
  });

  it('allow the request headers the gateway allows', () => {
    expect(listAfter(cors, 'the headers')).toEqual(split(sent.get('Access-Control-Allow-Headers')));
  });

  it('expose the headers the gateway exposes', () => {
    expect(listAfter(cors, 'Exposed headers:')).toEqual(split(sent.get('Access-Control-Expose-Headers')));
  });

  it("give the preflight's max age and the open origin", () => {
    expect(cors).toContain(`\`Access-Control-Max-Age: ${sent.get('Access-Control-Max-Age')}\``);
    expect(cors).toContain(`\`Access-Control-Allow-Origin: ${sent.get('Access-Control-Allow-Origin')}\``);
  });

  it('vary on what the gateway varies on', () => {
    expect(rowOf(decisions, '`Vary`')).toContain(`\`Vary: ${sent.get('Vary')}\``);
  });
});
