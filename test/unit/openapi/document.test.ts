// schemas/openapi.json is generated (scripts/openapi.ts) and committed, so that clients, type
// generators and the gateway's /openapi.json read a file. It must never drift from its sources:
// the schemas of schemas/, the gateway's behaviour and the sample data.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE, openApiText } from '../../../scripts/openapi.ts';

// Generating builds the sample in an in-memory PGlite: a few seconds, most of it the first open.
const GENERATION_MS = 60_000;
let generated: string;

beforeAll(async () => {
  generated = await openApiText();
}, GENERATION_MS);

describe('schemas/openapi.json', () => {
  it('is exactly what scripts/openapi.ts generates now', () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    // A short message rather than a 100 KB diff when only the generator's input changed.
    expect(committed === generated, 'schemas/openapi.json is stale: run `npm run openapi` and commit the file').toBe(true);
  });

  it(
    'is generated deterministically: again gives the same bytes',
    async () => {
      expect((await openApiText()) === generated).toBe(true);
    },
    GENERATION_MS,
  );

  it("derives every component from the builder's schema without additionalProperties: false, properties in order", async () => {
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { components: { schemas: Record<string, { properties?: object }> } };
    const organization = JSON.parse(readFileSync(new URL('../../../schemas/organization.schema.json', import.meta.url), 'utf8')) as { properties: object };
    expect(Object.keys(document.components.schemas.Organization!.properties!)).toEqual(Object.keys(organization.properties));
    expect(JSON.stringify(document.components)).not.toContain('"additionalProperties":false');
  });
});
