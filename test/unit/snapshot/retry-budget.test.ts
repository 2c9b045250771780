import { describe, expect, it } from 'vitest';
import { RetryBudget } from '../../../snapshot/stores/retry-budget.ts';

describe('RetryBudget', () => {
  it('allows the bucket’s retries in a row, then one for each tenth success, never more than the bucket holds', () => {
    const budget = new RetryBudget({ capacity: 3, successesPerRetry: 10 });
    expect([budget.spend(), budget.spend(), budget.spend(), budget.spend()]).toEqual([true, true, true, false]);
    for (let n = 0; n < 9; n++) budget.succeeded();
    expect(budget.spend()).toBe(false);
    for (let n = 0; n < 10; n++) budget.succeeded();
    expect([budget.spend(), budget.spend()]).toEqual([true, false]);
    for (let n = 0; n < 1_000; n++) budget.succeeded();
    expect([budget.spend(), budget.spend(), budget.spend(), budget.spend()]).toEqual([true, true, true, false]);
  });
});
