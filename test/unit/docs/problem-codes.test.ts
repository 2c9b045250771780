// The problem codes the docs say the gateway answers are the codes it answers (API_ERRORS in
// gateway/errors.ts): every code a guide gives with a status is one of them, and design.md's
// gateway decisions name each of them, so a code added, renamed or dropped on one side fails here.
// docs/api.md is the contract's own list (its test is its own); operation.md also speaks of the
// admin port's codes, and design.md's admin section only of those.
import { describe, expect, it } from 'vitest';
import { API_ERRORS } from '../../../gateway/errors.ts';
import { guides, readGuide, sectionOf } from './docs-files.ts';

/** The codes a text gives with a status: "401 `API_KEY_INVALID`", "404 with the additional code `NOT_FOUND`". */
function codesGivenWithAStatus(text: string): Set<string> {
  const codes = new Set<string>();
  for (const match of text.matchAll(/\b[1-5]\d\d\s+(?:with\s+the\s+(?:additional\s+)?code\s+)?`([A-Z][A-Z_]+)`/g)) codes.add(match[1]!);
  return codes;
}

/** design.md without its admin port's section (and that section's subsections). */
function designOfTheGateway(): string {
  const design = readGuide('docs/design.md');
  return design.replace(sectionOf(design, 'Admin API and console'), '');
}

const answered = new Set<string>(API_ERRORS);
const gatewayGuides = guides().filter((path) => path !== 'docs/api.md' && path !== 'docs/operation.md' && path !== 'docs/design.md');

describe('the problem codes of the docs', () => {
  it.each(gatewayGuides)('%s gives only codes the gateway answers', (path) => {
    expect([...codesGivenWithAStatus(readGuide(path))].filter((code) => !answered.has(code))).toEqual([]);
  });

  it("design.md's gateway sections give only codes the gateway answers", () => {
    expect([...codesGivenWithAStatus(designOfTheGateway())].filter((code) => !answered.has(code))).toEqual([]);
  });

  it("design.md's gateway sections name every code the gateway answers", () => {
    const named = codesGivenWithAStatus(designOfTheGateway());
    expect(API_ERRORS.filter((code) => !named.has(code))).toEqual([]);
  });

  it('reads a code after its status, and nothing else', () => {
    expect([...codesGivenWithAStatus('a 401 `API_KEY_INVALID`, 404 with the additional code `NOT_FOUND`, `REDIS_URL`, 2 `X_Y`')]).toEqual(['API_KEY_INVALID', 'NOT_FOUND']);
  });
});
