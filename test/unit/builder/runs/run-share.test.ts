// A builder's share of a divided run (builder/runs/run-share.ts), on the in-process work list.
import { describe, expect, it } from 'vitest';
import type { OrganizationResult, Target } from '../../../../builder/build.ts';
import { takeShare } from '../../../../builder/runs/run-share.ts';
import { InProcessWorkList } from '../../../../builder/runs/work-list.ts';

const target = (n: number): Target => ({ id: `org-${n}`, slug: `org-${n}`, name: `Organization ${n}`, status: 'active' }) as unknown as Target;
const built = (organization: Target): OrganizationResult => ({ id: organization.id, slug: organization.slug, result: 'unchanged', objectsWritten: 0 }) as OrganizationResult;

describe('a builder’s share of a run', () => {
  it('takes over the claims a dead builder left while one of its own workers is still busy, not after', async () => {
    const workList = new InProcessWorkList({ claimTimeoutMs: 200 });
    const organizations = [target(1), target(2), target(3)];
    const now = new Date().toISOString();
    await workList.open({ id: 'run-1', trigger: 'manual', scope: 'every', openedBy: 'dead', queuedAt: now, startedAt: now, total: 3, skipped: 0 }, organizations);
    // A builder takes two and dies: its claims expire after 200 ms, unkept.
    expect(await workList.take('run-1', 'dead', 2)).toHaveLength(2);

    // This builder's first worker takes the third, whose build lasts until the other two are built
    // (or 5 s): they can only be built meanwhile by its idle second worker taking them over.
    const order: string[] = [];
    let othersBuilt: () => void = () => {};
    const bothOthers = new Promise<void>((resolve) => (othersBuilt = resolve));
    const share = await takeShare(
      {
        workList,
        builder: 'alive',
        concurrency: 2,
        claimTimeoutMs: 200,
        pollMs: 20,
        build: async (organization) => {
          if (organization.id === 'org-3') await Promise.race([bothOthers, new Promise((resolve) => setTimeout(resolve, 5_000))]);
          order.push(organization.id);
          if (order.filter((id) => id !== 'org-3').length === 2) othersBuilt();
          return built(organization);
        },
        onBuilt: () => {},
        onProgress: () => {},
        onUnreachable: (error) => {
          throw error;
        },
        stopping: () => false,
      },
      'run-1',
    );
    expect(order).toEqual(['org-1', 'org-2', 'org-3']);
    expect(share.progress?.finishedAt).not.toBeNull();
    expect(share.built.map((result) => result.id).sort()).toEqual(['org-1', 'org-2', 'org-3']);
  });
});
