// The resource catalog: its manifest paths read back as the kind and event they were made of, and
// every schema it names is a file of schemas/.
import { describe, expect, it } from 'vitest';
import { EVENT_RESOURCE_KINDS, ORGANIZATION_RESOURCE_KINDS, RESOURCE_CATALOG, RESOURCE_KINDS, resourceAt, resourcePath } from '../../../snapshot/resource-catalog.ts';
import { readSchemaFiles, SCHEMA_SUFFIX } from '../../../snapshot/schema-catalog.ts';

const EVENT_ID = '5b1e0c2a-8d3f-4e6a-9b7c-1d2e3f4a5b6c';

describe('the resource catalog', () => {
  it('reads every manifest path back as its kind, with the event id for an event resource', () => {
    for (const kind of ORGANIZATION_RESOURCE_KINDS) expect(resourceAt(resourcePath[kind])).toEqual({ kind });
    for (const kind of EVENT_RESOURCE_KINDS) expect(resourceAt(resourcePath[kind](EVENT_ID))).toEqual({ kind, eventId: EVENT_ID });
    expect(RESOURCE_KINDS).toEqual([...ORGANIZATION_RESOURCE_KINDS, ...EVENT_RESOURCE_KINDS]);
  });

  it('names no kind for a path it does not hold', () => {
    for (const path of ['/', '/events/', '/events//sessions', `/events/${EVENT_ID}/rooms`, `/events/${EVENT_ID}/sessions/x`, '/organization/x', '/Team']) {
      expect(resourceAt(path), path).toBeUndefined();
    }
  });

  it('names only schemas that are files of schemas/', () => {
    const files = readSchemaFiles();
    for (const { storedSchema, apiSchema } of Object.values(RESOURCE_CATALOG)) {
      expect(files.has(`${storedSchema}${SCHEMA_SUFFIX}`), storedSchema).toBe(true);
      expect(files.has(`${apiSchema}${SCHEMA_SUFFIX}`), apiSchema).toBe(true);
    }
  });
});
