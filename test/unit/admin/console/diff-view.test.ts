import { describe, expect, it } from 'vitest';
import { describeChanges } from '../../../../builder/history/diff.ts';
import { diffRow, diffView, valueText } from '../../../../admin/console/diff-view.ts';

const member = (id: string, fullName: string) => ({ id, fullName, title: null });

describe('diffView', () => {
  it('shows a removed team member as one removal row with its whole value before and nothing after', () => {
    const before = [member('a', 'Ada'), member('b', 'Bo'), member('c', 'Cy')];
    const after = [member('a', 'Ada'), member('c', 'Cy')];
    const view = diffView({ added: [], removed: [], changed: [{ path: '/team', changes: describeChanges(before, after, 'team') }] });
    expect(view.sections).toEqual([
      { path: '/team', state: 'changed', rows: [{ kind: 'removed', label: 'team[id=b]', before: valueText(member('b', 'Bo')), after: null, note: null }] },
    ]);
    expect(view.counts).toEqual({ added: 0, removed: 1, changed: 0, moved: 0 });
  });

  it('shows a reorder as moves with positions counted from 1, never as removals and additions', () => {
    const before = [member('a', 'Ada'), member('b', 'Bo'), member('c', 'Cy')];
    const after = [member('c', 'Cy'), member('a', 'Ada'), member('b', 'Bo')];
    const rows = diffView({ added: [], removed: [], changed: [{ path: '/team', changes: describeChanges(before, after, 'team') }] }).sections[0]!.rows;
    expect(rows).toEqual([{ kind: 'moved', label: 'team[id=c]', before: 'position 3', after: 'position 1', note: 'moved from position 3 to 1' }]);
  });

  it('puts a changed field before and after side by side, as JSON so that null and "null" differ', () => {
    expect(diffRow({ kind: 'changed', pointer: '/title', label: 'title', before: null, after: 'null' })).toEqual({
      kind: 'changed',
      label: 'title',
      before: 'null',
      after: '"null"',
      note: null,
    });
    expect(diffRow({ kind: 'added', pointer: '/x', label: 'x', after: 1 })).toMatchObject({ before: null, after: '1' });
  });

  it('lists added and removed resources among the changed ones by path, and says when nothing differs', () => {
    const view = diffView({ added: ['/events/b'], removed: ['/events/a'], changed: [{ path: '/organization', changes: [] }] });
    expect(view.sections.map((section) => [section.path, section.state])).toEqual([
      ['/events/a', 'removed'],
      ['/events/b', 'added'],
      ['/organization', 'changed'],
    ]);
    expect(view.same).toBe(false);
    expect(diffView({ added: [], removed: [], changed: [] }).same).toBe(true);
  });
});
