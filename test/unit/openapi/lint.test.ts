// schemas/openapi.json passes Redocly's recommended ruleset without a single error or warning.
// A rule is switched off only here, each with the reason.
import { createConfig, lint, type NormalizedProblem } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../../scripts/openapi.ts';

describe('schemas/openapi.json', () => {
  it('passes the recommended ruleset with no errors and no warnings', async () => {
    const config = await createConfig({
      extends: ['recommended'],
      rules: {
        // The API is not published under a licence: its terms are the platform's own, and a
        // license object would have to invent one.
        'info-license': 'off',
      },
    });
    const problems = await lint({ ref: OPENAPI_FILE, config });
    expect(problems.map(explain), 'npm run openapi regenerates the file from scripts/openapi/').toEqual([]);
  });
});

function explain(problem: NormalizedProblem): string {
  const where = problem.location.map((location) => location.pointer ?? '').join(', ');
  return `${problem.severity} ${problem.ruleId} at ${where}: ${problem.message}`;
}
