import fastJsonPatch from 'fast-json-patch';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeChanges, diffResource, resourcePatch } from '../../../../builder/history/diff.ts';

const apply = (before: unknown, patch: ReturnType<typeof resourcePatch>) => fastJsonPatch.applyPatch(structuredClone(before), patch, true, false).newDocument;

const ada = { id: 'a', name: 'Ada', role: 'CTO' };
const bob = { id: 'b', name: 'Bob', role: 'CFO' };
const cyd = { id: 'c', name: 'Cyd', role: 'COO' };
const dee = { id: 'd', name: 'Dee', role: 'CMO' };

describe('diffResource', () => {
  it('reports one removal when a member in the middle of an array is removed', () => {
    const diff = diffResource([ada, bob, cyd, dee], [ada, cyd, dee], 'team');
    expect(diff.patch).toEqual([{ op: 'remove', path: '/1' }]);
    expect(diff.changes).toEqual([{ kind: 'removed', pointer: '/1', label: 'team[id=b]', before: bob }]);
  });

  it('reports an addition at its position', () => {
    const diff = diffResource([ada, cyd], [ada, bob, cyd], 'team');
    expect(diff.patch).toEqual([{ op: 'add', path: '/1', value: bob }]);
    expect(diff.changes).toEqual([{ kind: 'added', pointer: '/1', label: 'team[id=b]', after: bob }]);
  });

  it('reports a changed field of a matched element, by id, wherever it moved', () => {
    const after = { team: [cyd, { ...ada, role: 'CEO' }, bob] };
    const diff = diffResource({ team: [ada, bob, cyd] }, after, '');
    expect(diff.changes).toEqual([
      { kind: 'moved', pointer: '/team/0', label: 'team[id=c]', from: 2, to: 0 },
      { kind: 'changed', pointer: '/team/1/role', label: 'team[id=a].role', before: 'CTO', after: 'CEO' },
    ]);
    expect(apply({ team: [ada, bob, cyd] }, diff.patch)).toEqual(after);
  });

  it('moves only what left its order: the first element sent to the end is one move', () => {
    const diff = diffResource([ada, bob, cyd, dee], [bob, cyd, dee, ada], 'sponsors');
    expect(diff.patch).toEqual([{ op: 'move', from: '/0', path: '/3' }]);
    expect(diff.changes).toEqual([{ kind: 'moved', pointer: '/3', label: 'sponsors[id=a]', from: 0, to: 3 }]);
  });

  it('descends into nested objects and reports added and removed members', () => {
    const before = { name: 'N', venue: { city: 'Oslo', room: 'A' }, 'x/y': 1 };
    const after = { name: 'N', venue: { city: 'Bergen', floor: 2 }, 'x/y': 2 };
    expect(describeChanges(before, after, 'events/e1')).toEqual([
      { kind: 'removed', pointer: '/venue/room', label: 'events/e1.venue.room', before: 'A' },
      { kind: 'changed', pointer: '/venue/city', label: 'events/e1.venue.city', before: 'Oslo', after: 'Bergen' },
      { kind: 'added', pointer: '/venue/floor', label: 'events/e1.venue.floor', after: 2 },
      { kind: 'changed', pointer: '/x~1y', label: 'events/e1["x/y"]', before: 1, after: 2 },
    ]);
    expect(apply(before, resourcePatch(before, after))).toEqual(after);
  });

  it('matches id-less scalar arrays by value and others by position', () => {
    expect(diffResource({ tags: ['a', 'b', 'c'] }, { tags: ['a', 'c'] }, '').changes).toEqual([{ kind: 'removed', pointer: '/tags/1', label: 'tags["b"]', before: 'b' }]);
    const positional = diffResource([{ n: 1 }, { n: 2 }], [{ n: 1 }, { n: 3 }, { n: 4 }], 'list');
    expect(positional.changes).toEqual([
      { kind: 'changed', pointer: '/1/n', label: 'list[1].n', before: 2, after: 3 },
      { kind: 'added', pointer: '/2', label: 'list[2]', after: { n: 4 } },
    ]);
  });

  it('replaces a value whose type changed, the root included', () => {
    expect(resourcePatch({ a: [1] }, { a: { b: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { b: 1 } }]);
    expect(resourcePatch([1], { a: 1 })).toEqual([{ op: 'replace', path: '', value: { a: 1 } }]);
  });

  it('finds nothing between equal values, member order aside', () => {
    expect(resourcePatch({ a: 1, b: [ada] }, { b: [{ role: 'CTO', name: 'Ada', id: 'a' }], a: 1 })).toEqual([]);
  });
});

/** Arrays of identified elements drawn from a small pool, so that removals, additions, moves and edits all occur. */
const element = fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 1, 2), name: fc.constantFrom('Ada', 'Bob', 'x'), n: fc.integer({ min: 0, max: 3 }) });
const identified = fc.uniqueArray(element, { selector: (e) => e.id, maxLength: 8 });
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, 1, 2, 'a', 'b'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 1, 2), { maxLength: 5 }),
    identified,
    fc.dictionary(fc.constantFrom('id', 'name', 'team', 'a/b', '~x'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('the patch', () => {
  it('turns the old resource into the new one (fast-json-patch applyPatch, validated)', () => {
    fc.assert(
      fc.property(json, json, (before, after) => {
        const frozen = structuredClone(before);
        const patch = resourcePatch(before, after);
        expect(apply(before, patch)).toEqual(after);
        expect(before).toEqual(frozen);
      }),
      { numRuns: 2000 },
    );
  });

  it('turns one identified array into another with one change per element at most', () => {
    fc.assert(
      fc.property(identified, identified, (before, after) => {
        const diff = diffResource({ team: before }, { team: after }, '');
        expect(apply({ team: before }, diff.patch)).toEqual({ team: after });
        const elements = diff.changes.filter((c) => c.kind !== 'changed').map((c) => c.label);
        expect(new Set(elements).size).toBe(elements.length);
      }),
      { numRuns: 2000 },
    );
  });
});
