// The promises of PublishChannel (snapshot/notifications.ts), as one suite every implementation
// runs: the in-process channel, and Redis pub/sub between processes. Delivery may
// come after announce resolved (across processes it does), so every check waits for it, and
// "not heard" is checked behind a barrier: a listener still subscribed that heard the same
// announcement. What an implementation must do:
//
// - an announcement reaches every subscriber once, with the organization id; announce with no
//   subscriber resolves;
// - each subscriber hears announcements in the order they were made;
// - a subscriber hears only what was announced after it subscribed;
// - unsubscribe stops delivery to that listener only; calling it twice is harmless; a listener
//   may unsubscribe itself while it is being called;
// - a listener that throws keeps no other from hearing it, and announce still resolves; the
//   thrower keeps hearing later announcements;
// - with a second channel on the same bus (another process): announcements cross over, each
//   heard once, and one announcer's announcements arrive in the order it made them. Across
//   processes a subscription takes effect some time after subscribe returns, so those tests first
//   wait until a marker announced from one side is heard on the other.
import { describe, expect, it } from 'vitest';
import type { PublishChannel } from '../../snapshot/notifications.ts';
import { type ContractHooks, eventually, useHarness, itWith } from './harness.ts';

export interface PublishChannelHarness {
  channel: PublishChannel;
  /** Another channel on the same bus, as another process opens it. Absent: no such thing. */
  other?: () => PublishChannel;
}

const ORG_A = '0b7c3c1e-6f1a-4d7e-9a1b-2c3d4e5f6a7b';
const ORG_B = '9f8e7d6c-5b4a-4321-8fed-cba987654321';

/** Announced only to learn that a subscription across the bus is in force; recorders ignore it. */
const MARKER = 'ffffffff-0000-4000-8000-000000000000';

/** A listener that writes down what it hears. */
function recorder(): { heard: string[]; listener: (organizationId: string) => void } {
  const heard: string[] = [];
  return { heard, listener: (organizationId) => void (organizationId === MARKER || heard.push(organizationId)) };
}

/** Resolves once `to`'s subscription hears what `from` announces: the marker is announced until it arrives. */
async function connected(from: PublishChannel, to: PublishChannel): Promise<void> {
  let arrived = false;
  // Stays subscribed: a channel may drop its bus subscription when its last listener leaves.
  to.subscribe((organizationId) => {
    if (organizationId === MARKER) arrived = true;
  });
  await eventually(async () => {
    if (!arrived) await from.announce(MARKER);
    expect(arrived).toBe(true);
  });
}

export function publishChannelContract<H extends PublishChannelHarness>(name: string, hooks: ContractHooks<H>): void {
  describe(`PublishChannel contract: ${name}`, () => {
    const harness = useHarness(hooks);
    const channel = () => harness().channel;

    it('announces to nobody without a subscriber, and resolves', async () => {
      await expect(channel().announce(ORG_A)).resolves.toBeUndefined();
    });

    it('reaches every subscriber once, with the organization id', async () => {
      const listeners = [recorder(), recorder(), recorder()];
      for (const { listener } of listeners) channel().subscribe(listener);
      await channel().announce(ORG_A);
      for (const { heard } of listeners) await eventually(() => expect(heard).toEqual([ORG_A]));
    });

    it('delivers to each subscriber in the order of the announcements', async () => {
      const listeners = [recorder(), recorder()];
      for (const { listener } of listeners) channel().subscribe(listener);
      // Repeats included: every announcement is delivered, none folded into another.
      const sent = Array.from({ length: 20 }, (_, i) => [ORG_A, ORG_B, ORG_A, ORG_A, `org-${i}`][i % 5]!);
      for (const organizationId of sent) await channel().announce(organizationId);
      for (const { heard } of listeners) await eventually(() => expect(heard).toEqual(sent));
    });

    it('tells a subscriber only what is announced after it subscribed', async () => {
      const early = recorder();
      channel().subscribe(early.listener);
      await channel().announce(ORG_A);
      await eventually(() => expect(early.heard).toEqual([ORG_A]));
      const late = recorder();
      channel().subscribe(late.listener);
      await channel().announce(ORG_B);
      await eventually(() => expect(early.heard).toEqual([ORG_A, ORG_B]));
      await eventually(() => expect(late.heard).toEqual([ORG_B]));
    });

    it('stops delivery to an unsubscribed listener only; unsubscribing twice is harmless', async () => {
      const leaving = recorder();
      const staying = recorder();
      const unsubscribe = channel().subscribe(leaving.listener);
      channel().subscribe(staying.listener);
      await channel().announce(ORG_A);
      await eventually(() => expect(leaving.heard).toEqual([ORG_A]));
      unsubscribe();
      unsubscribe();
      await channel().announce(ORG_B);
      await eventually(() => expect(staying.heard).toEqual([ORG_A, ORG_B]));
      expect(leaving.heard).toEqual([ORG_A]);
    });

    it('lets a listener unsubscribe itself while it is being called; the others still hear it', async () => {
      const once: string[] = [];
      const unsubscribe = channel().subscribe((organizationId) => {
        once.push(organizationId);
        unsubscribe();
      });
      const others = [recorder(), recorder()];
      for (const { listener } of others) channel().subscribe(listener);
      await channel().announce(ORG_A);
      await channel().announce(ORG_B);
      for (const { heard } of others) await eventually(() => expect(heard).toEqual([ORG_A, ORG_B]));
      expect(once).toEqual([ORG_A]);
    });

    it('keeps a throwing listener from stopping the others; announce still resolves, the thrower hears on', async () => {
      const before = recorder();
      const after = recorder();
      const thrower: string[] = [];
      channel().subscribe(before.listener);
      channel().subscribe((organizationId) => {
        thrower.push(organizationId);
        throw new Error(`listener failed on ${organizationId}`);
      });
      channel().subscribe(after.listener);
      await expect(channel().announce(ORG_A)).resolves.toBeUndefined();
      await expect(channel().announce(ORG_B)).resolves.toBeUndefined();
      for (const { heard } of [before, after]) await eventually(() => expect(heard).toEqual([ORG_A, ORG_B]));
      await eventually(() => expect(thrower).toEqual([ORG_A, ORG_B]));
    });

    itWith(hooks, 'other')('carries announcements to subscribers of another channel on the same bus, and back, each once', async () => {
      const remote = harness().other!();
      await connected(channel(), remote);
      await connected(remote, channel());
      const here = recorder();
      const there = [recorder(), recorder()];
      channel().subscribe(here.listener);
      for (const { listener } of there) remote.subscribe(listener);
      await channel().announce(ORG_A);
      await remote.announce(ORG_B);
      for (const { heard } of [here, ...there]) await eventually(() => expect(heard).toEqual([ORG_A, ORG_B]));
    });

    itWith(hooks, 'other')("delivers one announcer's announcements across the bus in the order it made them", async () => {
      const remote = harness().other!();
      await connected(channel(), remote);
      const there = recorder();
      const here = recorder();
      remote.subscribe(there.listener);
      channel().subscribe(here.listener);
      const sent = Array.from({ length: 50 }, (_, i) => [ORG_A, ORG_B, `org-${i}`][i % 3]!);
      // Not awaited one by one: the order is the order of the calls, whatever each takes.
      await Promise.all(sent.map((organizationId) => channel().announce(organizationId)));
      await eventually(() => expect(there.heard).toEqual(sent));
      await eventually(() => expect(here.heard).toEqual(sent));
    });
  });
}
