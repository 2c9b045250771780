// The PublishChannel contract (test/contracts/publish-channel.ts) against the in-process channel,
// and what only the in-process channel promises: delivery before announce resolves, and where a
// throwing listener's error goes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InProcessChannel } from '../../../snapshot/notifications.ts';
import { publishChannelContract } from '../../contracts/publish-channel.ts';

publishChannelContract('InProcessChannel', {
  // Listener errors are the channel's to report; the contract's throwing listener is expected.
  setup: () => ({ channel: new InProcessChannel(() => undefined) }),
});

describe('InProcessChannel beyond the contract', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('has called every listener when announce resolves', async () => {
    const channel = new InProcessChannel();
    const heard: string[] = [];
    channel.subscribe((id) => heard.push(`a:${id}`));
    channel.subscribe((id) => heard.push(`b:${id}`));
    await channel.announce('org');
    expect(heard).toEqual(['a:org', 'b:org']);
  });

  it("hands a throwing listener's error to its handler, with the organization", async () => {
    const errors: Array<[unknown, string]> = [];
    const channel = new InProcessChannel((error, organizationId) => errors.push([error, organizationId]));
    const failure = new Error('listener broke');
    channel.subscribe(() => {
      throw failure;
    });
    await channel.announce('org');
    expect(errors).toEqual([[failure, 'org']]);
  });

  it("writes a throwing listener's error to stderr by default", async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const channel = new InProcessChannel();
    const failure = new Error('listener broke');
    channel.subscribe(() => {
      throw failure;
    });
    await channel.announce('org');
    expect(printed).toHaveBeenCalledWith('publish listener failed for organization org:', failure);
  });
});
