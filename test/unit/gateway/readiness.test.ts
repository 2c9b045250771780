// GET /healthz's readiness: the gateway is ready once the store has answered, and never reported
// "ok" while the first probe is still finding out whether the store exists.
import { describe, expect, it } from 'vitest';
import { GatewayHealth } from '../../../gateway/readiness.ts';
import { MemoryStore } from '../../../snapshot/stores/memory.ts';
import { RecordingLog } from '../../support/recording-log.ts';

/** A store that answers at once, and says it does not exist only when the test lets it. */
class MissingStore extends MemoryStore {
  release!: () => void;
  private notifyAsked: () => void = () => {};
  /** Resolves once the probe asks whether the store exists. */
  readonly asked = new Promise<void>((resolve) => (this.notifyAsked = resolve));

  async assertExists(): Promise<void> {
    this.notifyAsked();
    await new Promise<void>((resolve) => (this.release = resolve));
    throw new Error('directory /srv/no-such-snapshots does not exist');
  }
}

describe('GatewayHealth', () => {
  it('is starting, never ok, while its first probe is still asking whether the store exists; then unavailable with the reason', async () => {
    const store = new MissingStore();
    const health = new GatewayHealth({ store, log: new RecordingLog(), intervalMs: 60_000 });
    let ready = false;
    void health.ready.then(() => (ready = true));
    await store.asked;
    expect(health.report().status).toBe('starting');
    expect(ready).toBe(false);
    store.release();
    await health.ready;
    expect(health.report()).toEqual({ status: 'unavailable', problems: ['snapshot store: directory /srv/no-such-snapshots does not exist'] });
    health.close();
  });

  it('is ok once a store that exists has answered', async () => {
    const health = new GatewayHealth({ store: new MemoryStore(), log: new RecordingLog(), intervalMs: 60_000 });
    await health.ready;
    expect(health.report()).toEqual({ status: 'ok' });
    health.close();
  });
});
