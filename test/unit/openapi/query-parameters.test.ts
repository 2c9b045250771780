// The query parameters OpenAPI describes are the public queries' schemas (QUERY_SCHEMAS): a member
// added there is a parameter here, with nothing else to edit.
import { describe, expect, it } from 'vitest';
import { queryParameters } from '../../../scripts/openapi/query-parameters.ts';
import { QUERY_SCHEMAS } from '../../../snapshot/resource-catalog.ts';

describe('queryParameters', () => {
  it('writes one optional query parameter per member, named after it, its rule in words left out', () => {
    expect(queryParameters(QUERY_SCHEMAS.ChangesQuery)).toEqual({
      Since: {
        name: 'since',
        in: 'query',
        required: false,
        description: QUERY_SCHEMAS.ChangesQuery.properties.since.description,
        schema: { type: 'string', pattern: QUERY_SCHEMAS.ChangesQuery.properties.since.pattern },
      },
    });
  });

  it('follows a member added to the schema, in the schema order; a required member without a default is required', () => {
    const { EventsQuery } = QUERY_SCHEMAS;
    const withCity = { ...EventsQuery, required: [...EventsQuery.required, 'city'], properties: { ...EventsQuery.properties, city: { description: 'The city.', type: 'string' } } };
    const parameters = queryParameters(withCity);
    expect(Object.keys(parameters)).toEqual(['Timing', 'Page', 'PageSize', 'City']);
    expect(parameters.City).toEqual({ name: 'city', in: 'query', required: true, description: 'The city.', schema: { type: 'string' } });
    expect(parameters.PageSize).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
  });
});
