// `npm run openapi`: writes schemas/openapi.json, the OpenAPI 3.1 description of the integration
// API (scripts/openapi/document.ts), from the JSON Schemas of schemas/ and with examples the real
// gateway gave for the sample data. Deterministic: the same sources give the same bytes, and a
// unit test (test/unit/openapi/document.test.ts) fails when the committed file is not current.
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from './openapi/document.ts';
import { sampleExamples } from './openapi/examples.ts';

export const OPENAPI_FILE = fileURLToPath(new URL('../schemas/openapi.json', import.meta.url));

/** The document's exact text: two-space indentation, a final newline. */
export async function openApiText(): Promise<string> {
  return `${JSON.stringify(openApiDocument(await sampleExamples()), null, 2)}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // The gateway the examples come from serves this very file and reads it when it starts: a
  // checkout without it (deleted by hand) starts from an empty document.
  if (!existsSync(OPENAPI_FILE)) writeFileSync(OPENAPI_FILE, '{}\n');
  writeFileSync(OPENAPI_FILE, await openApiText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
