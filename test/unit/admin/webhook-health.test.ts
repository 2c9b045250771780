// The pure parts of an endpoint's health and of the registration's warning: which running builders
// would refuse a URL the registering settings accepted, and the health's line in `webhooks list`.
import { describe, expect, it } from 'vitest';
import { refusals } from '../../../admin/webhook-admin.ts';
import { describeHealth } from '../../../bin/commands/webhooks.ts';

describe('refusals', () => {
  it('names each running builder whose own settings refuse the URL, and only those', async () => {
    const lenient = { allowPrivate: true, allowInsecure: true };
    const builders = [
      { builder: 'strict', allowPrivate: false, allowInsecure: false },
      { builder: 'same', ...lenient },
      { builder: 'private-only', allowPrivate: true, allowInsecure: false },
    ];
    const warnings = await refusals('http://127.0.0.1:8080/hook', lenient, builders);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^builder strict is running with other WEBHOOK_ALLOW_\* settings and refuses every delivery to this URL: url must be https/);
    expect(warnings[1]).toMatch(/^builder private-only /);
    // An https URL on a private address: only the builder without WEBHOOK_ALLOW_PRIVATE refuses it.
    expect(await refusals('https://10.0.0.7/hook', lenient, builders)).toEqual([expect.stringMatching(/^builder strict .*is not a public address \(private\)/)]);
    expect(await refusals('http://127.0.0.1/hook', lenient, [])).toEqual([]);
  });
});

describe('describeHealth', () => {
  it('says the last attempt, how it ended and why, and what waits', () => {
    expect(describeHealth({ lastAttempt: null, waiting: 0, nextRetryAt: null })).toBe('no attempt yet');
    expect(
      describeHealth({
        lastAttempt: { at: '2026-05-01T09:00:00.000Z', messageId: 'msg_1', delivered: false, status: 503, error: 'answered 503' },
        waiting: 2,
        nextRetryAt: '2026-05-01T09:05:00.000Z',
      }),
    ).toBe('last attempt 2026-05-01T09:00:00.000Z: failed: answered 503; 2 waiting, next retry 2026-05-01T09:05:00.000Z');
    expect(describeHealth({ lastAttempt: { at: '2026-05-01T09:00:00.000Z', messageId: 'msg_1', delivered: true, status: 204, error: null }, waiting: 0, nextRetryAt: null })).toBe(
      'last attempt 2026-05-01T09:00:00.000Z: delivered (204)',
    );
  });
});
