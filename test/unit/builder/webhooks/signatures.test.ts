import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSecret, signatureHeader } from '../../../../builder/webhooks/signatures.ts';
import { retryDelay } from '../../../../builder/webhooks/webhook-policy.ts';

describe('signatures', () => {
  it('are what the standardwebhooks package verifies, with each secret in force', () => {
    const [current, previous] = [newSecret(), newSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const body = JSON.stringify({ type: 'webhook.test', data: { n: 1 } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([current, previous], 'msg_1', timestamp, body) };
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('retryDelay', () => {
  const policy = { allowPrivate: false, allowInsecure: false, retryDelaysMs: [5_000, 300_000], disableAfterMs: 1 };
  it('follows the schedule within ±10 %, and ends after its last delay', () => {
    expect(retryDelay(policy, 1, () => 0)).toBe(4_500);
    expect(retryDelay(policy, 1, () => 1)).toBe(5_500);
    expect(retryDelay(policy, 2, () => 0.5)).toBe(300_000);
    expect(retryDelay(policy, 3)).toBeUndefined();
  });
});
