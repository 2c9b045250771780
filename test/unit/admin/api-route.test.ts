// A route of the admin API typed from its schemas (admin/api-route.ts, admin/schema-type.ts): its
// answer gets its path parameters, query and body as the schemas say, and what it returns is
// checked against its response schema, when it compiles (the type assertions here are checked by
// `tsc`, the `@ts-expect-error` lines fail it if they compile); when it runs, the same schemas
// refuse what does not fit before the answer is called.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { route } from '../../../admin/api-route.ts';
import { adminRoute } from '../../../admin/api-routes.ts';
import type { AdminSchemaType } from '../../../admin/api-schemas.ts';
import type { AdminServices } from '../../../admin/services.ts';
import { type Attribution, ROOT_ACTOR } from '../../../records/actor.ts';

const services = {} as AdminServices;
const actor: Attribution = { actor: ROOT_ACTOR, door: 'api' };

describe('a route declared with route()', () => {
  const declared = route({
    name: 'renameThing',
    action: 'key.updated',
    method: 'post',
    path: '/things/{id}/names/{name}',
    params: {
      type: 'object',
      required: ['id', 'name'],
      properties: { id: { type: 'string', pattern: '^t[0-9]+$', description: 'a thing id: t and digits' }, name: { type: 'string', minLength: 1 } },
    },
    role: 'operator',
    tag: 'Keys',
    summary: 'A route for this test',
    query: { type: 'object', required: ['why'], properties: { why: { type: 'string', minLength: 1 }, note: { type: 'string' } } },
    body: {
      type: 'object',
      required: ['label'],
      properties: { label: { type: ['string', 'null'] }, count: { type: 'integer', minimum: 0 }, kind: { enum: ['a', 'b'] }, tags: { type: 'array', items: { type: 'string' } } },
    },
    status: 200,
    response: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, label: { type: ['string', 'null'] } } },
    errors: [],
    answer: (_services, { params, query, body }) => {
      expectTypeOf(params).toEqualTypeOf<{ readonly id: string; readonly name: string }>();
      expectTypeOf(query).toEqualTypeOf<{ why: string; note?: string }>();
      expectTypeOf(body).toEqualTypeOf<{ label: string | null; count?: number; kind?: 'a' | 'b'; tags?: string[] }>();
      return { id: `${params.id}/${params.name}`, label: body.label };
    },
  });

  it('answers with what passed the schemas, the body checked after the query', async () => {
    const request = { params: { id: 't1', name: 'n' }, query: { why: 'test' }, body: { label: 'x', other: 'ignored' } };
    expect(await declared.handle(services, request, actor)).toEqual({ body: { id: 't1/n', label: 'x' } });
    await expect(declared.handle(services, { ...request, query: {} }, actor)).rejects.toMatchObject({ status: 400, detail: 'the query parameter why is required' });
    // A segment not of its form is refused before the answer sees it, whatever else the request holds.
    await expect(declared.handle(services, { ...request, params: { id: '../../x', name: 'n' }, query: {} }, actor)).rejects.toMatchObject({
      status: 400,
      detail: 'the path parameter id is not of its form: a thing id: t and digits',
    });
    await expect(declared.handle(services, { ...request, body: { label: 7 } }, actor)).rejects.toMatchObject({ status: 400, detail: 'label must be a string or null' });
    expect(declared.readBody({ label: null, count: 2 })).toEqual({ label: null, count: 2 });
    expect(() => declared.readBody({ label: null, count: -1 })).toThrow('count must be a integer, 0 or more');
  });

  it('stops start-up when a path parameter has no form', () => {
    const formless = route({
      name: 'formless',
      method: 'get',
      path: '/things/{id}',
      role: 'auditor',
      tag: 'Keys',
      summary: 'A route for this test',
      status: 204,
      errors: [],
      answer: () => undefined,
    });
    expect(() => formless.compile()).toThrow('GET /things/{id} declares no form for its path parameter id');
  });

  it('is a compile error when its answer does not fit its response schema', () => {
    route({
      name: 'wrongAnswer',
      method: 'get',
      path: '/things',
      role: 'auditor',
      tag: 'Keys',
      summary: 'A route for this test',
      status: 200,
      response: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      errors: [],
      // @ts-expect-error: id must be text
      answer: () => ({ id: 1 }),
    });
    expect(true).toBe(true);
  });
});

describe('the routes of the table', () => {
  it("give the console's forms the body type of their schema", () => {
    const createKey = adminRoute('createKey');
    expectTypeOf(createKey.readBody).returns.toEqualTypeOf<{ organization: string; origins?: string[]; label?: string | null; expiresAt?: string | null }>();
    expectTypeOf(adminRoute('createAdmin').readBody).returns.toEqualTypeOf<{ name: string; role: 'auditor' | 'operator' | 'owner'; expiresAt?: string | null }>();
    expect(createKey.role).toBe('operator');
  });

  it('resolve references to the named schemas, nullable members and lists among them', () => {
    type Run = AdminSchemaType<{ $ref: '#/components/schemas/BuildRun' }>;
    expectTypeOf<Run['finishedAt']>().toEqualTypeOf<string | null>();
    expectTypeOf<Run['organizations'][number]['verified']>().toEqualTypeOf<true | undefined>();
    expectTypeOf<AdminSchemaType<{ $ref: '#/components/schemas/HistoryEntry' }>['snapshotId']>().toEqualTypeOf<string | null>();
    expect(true).toBe(true);
  });
});
