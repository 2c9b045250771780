import { expect, it } from 'vitest';
import { historyRows } from '../../../../admin/console/history-view.ts';

const NOW = new Date('2026-11-22T10:00:00Z');

it('links each snapshot to the next older snapshot across state changes, and older ones to the current', () => {
  const { rows, currentId } = historyRows(
    [
      { snapshotId: 's3', publishedAt: '2026-11-22T09:59:00Z', trigger: 'change', resources: 9, current: true },
      { state: 'active', snapshotId: null, publishedAt: '2026-11-22T09:30:00Z', trigger: 'change', current: false },
      { state: 'suspended', snapshotId: null, publishedAt: '2026-11-22T09:00:00Z', trigger: 'change', current: false },
      { snapshotId: 's1', publishedAt: '2026-11-21T10:00:00Z', trigger: 'start', resources: 8, current: false },
    ],
    NOW,
  );
  expect(currentId).toBe('s3');
  expect(rows.map((row) => [row.what, row.snapshotId, row.previousId, row.at?.age])).toEqual([
    ['published (change)', 's3', 's1', '1 minute ago'],
    ['reactivated', null, null, '30 minutes ago'],
    ['suspended', null, null, '1 hour ago'],
    ['published (start)', 's1', null, '1 day ago'],
  ]);
  expect(rows[1]!.resources).toBeNull();
});

it('has no current snapshot while the organization is suspended', () => {
  const { currentId } = historyRows([{ state: 'suspended', snapshotId: null, publishedAt: '2026-11-22T09:00:00Z', current: true }], NOW);
  expect(currentId).toBeNull();
});
