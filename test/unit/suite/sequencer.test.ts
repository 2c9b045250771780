// The suite's start order (test/support/sequencer.ts): longest first, waiting files kept apart.
import { describe, expect, it } from 'vitest';
import { startOrder } from '../../support/sequencer.ts';

const file = (name: string) => `/checkout/test/integration/${name}.test.ts`;
const order = (names: string[]) => startOrder(names.map(file), (id) => id).map((id) => id.replace(/^.*integration\/|\.test\.ts$/g, ''));

describe('startOrder', () => {
  it('starts the longest files first and keeps the order of the ones it has no time for', () => {
    expect(order(['unlisted/b', 'cli/cli', 'unlisted/a', 'production/chaos'])).toEqual(['production/chaos', 'cli/cli', 'unlisted/b', 'unlisted/a']);
  });

  it('never starts a waiting file right after another while a busy one is left, then takes the waiting ones in turn', () => {
    // webhooks (90 s), builder-killed (44 s) and keys-outlive-redis (27 s) wait; clients (37 s) computes.
    expect(order(['production/builder-killed', 'clients/clients', 'production/keys-outlive-redis', 'webhooks/webhooks'])).toEqual([
      'webhooks/webhooks',
      'clients/clients',
      'production/builder-killed',
      'production/keys-outlive-redis',
    ]);
  });

  it('starts the history files, among the longest since run 23, ahead of the CLI suite and the webhooks', () => {
    expect(order(['webhooks/webhooks', 'cli/cli', 'history/verify-missing', 'history/verify-log'])).toEqual([
      'history/verify-log',
      'history/verify-missing',
      'cli/cli',
      'webhooks/webhooks',
    ]);
  });
});
