// examples/webhook-receiver's verification alone, in-process: a message is refused unless its
// webhook-timestamp is Unix seconds within five minutes and its signature is over exactly it
// (docs/api.md §6.2 step 1). The whole receiver, run as its README says, is
// test/integration/webhooks/example-receiver.test.ts.
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { WebhookReceiver } from '../../../examples/webhook-receiver/receiver.mjs';

const SECRET_BYTES = Buffer.from('a secret of twenty-four!');
const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;
const BODY = '{"type":"snapshot.published","data":{"changed":[]}}';

/** A request as the sender makes it, signed with the secret over the timestamp as given. */
function signed(timestamp: string, id = 'msg_1'): IncomingMessage {
  const signature = createHmac('sha256', SECRET_BYTES).update(`${id}.${timestamp}.${BODY}`).digest('base64');
  return { headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` } } as unknown as IncomingMessage;
}

const receiver = new WebhookReceiver({ secret: SECRET, key: 'mqk_unused', api: 'http://127.0.0.1:1' });
const now = () => String(Math.floor(Date.now() / 1000));

describe('webhook-timestamp', () => {
  it('accepts Unix seconds of now, signed', () => {
    expect(receiver.verify(signed(now()), BODY)).toBe('ok');
  });

  it.each(['NaN', 'Infinity', '', ' ', 'soon', `${now()}.5`, ` ${now()}`, '1e9', '0x6a000000', '-1'])('refuses %j even when the signature covers it', (timestamp) => {
    expect(receiver.verify(signed(timestamp), BODY)).toBe('timestamp is not a number of seconds');
  });

  it('refuses seconds more than five minutes away, either side', () => {
    const seconds = Math.floor(Date.now() / 1000);
    expect(receiver.verify(signed(String(seconds - 301)), BODY)).toBe('timestamp out of tolerance');
    expect(receiver.verify(signed(String(seconds + 301)), BODY)).toBe('timestamp out of tolerance');
  });
});
