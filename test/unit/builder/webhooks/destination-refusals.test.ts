// A webhook URL refused for more than one reason names every setting it needs at once: trying
// webhooks on one machine (http://127.0.0.1:…) needs WEBHOOK_ALLOW_INSECURE and
// WEBHOOK_ALLOW_PRIVATE, and naming only the first sent the operator back for the second.
import { describe, expect, it } from 'vitest';
import { refusals } from '../../../../admin/webhook-admin.ts';
import { checkDestination } from '../../../../builder/webhooks/destinations.ts';

const strict = { allowPrivate: false, allowInsecure: false };

describe('checkDestination of a URL refused for two reasons', () => {
  it.each(['http://127.0.0.1:18290/hook', 'http://localhost:3000/marquee', 'http://[::1]/hook', 'http://10.0.0.7/hook'])('names both settings for %s', async (url) => {
    const refused = await checkDestination(url, strict).then(
      () => '',
      (error: Error) => error.message,
    );
    // The first reason as it always read (what the delivery log and the console say), then the second.
    expect(refused).toMatch(/^url must be https \(http only with WEBHOOK_ALLOW_INSECURE=1\), got "[^"]+"; and url's host \S+ .*is not a public address \((loopback|private)\)/);
    expect(refused).toContain('This URL needs both WEBHOOK_ALLOW_INSECURE=1 and WEBHOOK_ALLOW_PRIVATE=1');
  });

  it('names only the setting missing when the other is given', async () => {
    const url = 'http://127.0.0.1:18290/hook';
    await expect(checkDestination(url, { ...strict, allowInsecure: true })).rejects.toThrow(
      /^url's host 127\.0\.0\.1 is not a public address \(loopback\); webhooks go to public addresses only, unless WEBHOOK_ALLOW_PRIVATE=1$/,
    );
    await expect(checkDestination(url, { ...strict, allowPrivate: true })).rejects.toThrow(/^url must be https \(http only with WEBHOOK_ALLOW_INSECURE=1\), got "[^"]+"$/);
    expect((await checkDestination(url, { allowPrivate: true, allowInsecure: true })).href).toBe(url);
  });

  it('names both in the warning about a running builder that refuses the URL', async () => {
    const warnings = await refusals('http://127.0.0.1:18290/hook', { allowPrivate: true, allowInsecure: true }, [{ builder: 'strict', ...strict }]);
    expect(warnings).toEqual([expect.stringMatching(/^builder strict is running with other WEBHOOK_ALLOW_\* settings .*WEBHOOK_ALLOW_INSECURE=1 and WEBHOOK_ALLOW_PRIVATE=1/)]);
  });
});
