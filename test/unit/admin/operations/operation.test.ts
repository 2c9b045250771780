// The one pipeline of every door (admin/operations/operation.ts call): the role first, then the
// input against the operation's schemas, then run, as the actor the door names.
import { describe, expect, it } from 'vitest';
import { currentAttribution } from '../../../../admin/acting.ts';
import { call, operation } from '../../../../admin/operations/operation.ts';
import type { AdminServices } from '../../../../admin/services.ts';
import type { Attribution } from '../../../../records/actor.ts';

const services = {} as AdminServices;
const operator: Attribution = { actor: { name: 'ops', role: 'operator' }, door: 'cli' };
const auditor: Attribution = { actor: { name: 'reader', role: 'auditor' }, door: 'api' };

describe('call', () => {
  const seen: { actor: string; acting: string; label: string }[] = [];
  const relabel = operation({
    name: 'relabelThing',
    audit: { action: 'key.updated' },
    method: 'patch',
    path: '/things/{id}',
    params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^t[0-9]+$' } } },
    role: 'operator',
    tag: 'Keys',
    summary: 'Relabel a thing',
    body: { type: 'object', required: ['label'], properties: { label: { type: 'string' } } },
    status: 200,
    errors: [],
    run: (_services, { params, body }, actor) => {
      seen.push({ actor: actor.actor.name, acting: currentAttribution().actor.name, label: body.label });
      return { id: params.id, label: body.label };
    },
  });

  it('runs the operation with its valid input, as the actor the door names', async () => {
    expect(await call(relabel, services, { params: { id: 't1' }, query: {}, body: { label: 'x' } }, operator)).toEqual({ body: { id: 't1', label: 'x' } });
    expect(seen).toEqual([{ actor: 'ops', acting: 'ops', label: 'x' }]);
    expect(relabel.action).toBe('key.updated');
  });

  it('refuses a role that may not call it before its input is read, and input that does not fit before run', async () => {
    seen.length = 0;
    await expect(call(relabel, services, { params: { id: '../x' }, query: {}, body: {} }, auditor)).rejects.toMatchObject({ status: 403, errorCode: 'ADMIN_FORBIDDEN' });
    await expect(call(relabel, services, { params: { id: 't1' }, query: {}, body: {} }, operator)).rejects.toMatchObject({ status: 400 });
    expect(seen).toEqual([]);
  });
});
