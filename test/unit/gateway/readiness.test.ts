// The gateway's part of GET /readyz: ready once the store has answered, never reported ready while
// the first probe is still finding out whether the store exists; and the store's state written
// into the process's backend states, which /metrics reads too.
import { describe, expect, it } from 'vitest';
import { GatewayHealth } from '../../../gateway/readiness.ts';
import { BackendStates } from '../../../runtime/backend-states.ts';
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
  it('is starting, never ready, while its first probe is still asking whether the store exists; then unavailable with the reason, the store down', async () => {
    const store = new MissingStore();
    const states = new BackendStates();
    const health = new GatewayHealth({ store, log: new RecordingLog(), states, intervalMs: 60_000 });
    let ready = false;
    void health.ready.then(() => (ready = true));
    await store.asked;
    expect(health.part().status).toBe('starting');
    expect(states.report().store).toMatchObject({ state: 'down', why: 'not answered yet' });
    expect(ready).toBe(false);
    store.release();
    await health.ready;
    expect(health.part()).toEqual({ status: 'unavailable', problems: ['snapshot store: directory /srv/no-such-snapshots does not exist'] });
    expect(states.report().store).toMatchObject({ state: 'down', why: 'directory /srv/no-such-snapshots does not exist', meanwhile: expect.stringContaining('holds') });
    health.close();
  });

  it('is ready once a store that exists has answered, the store ok', async () => {
    const states = new BackendStates();
    const health = new GatewayHealth({ store: new MemoryStore(), log: new RecordingLog(), states, intervalMs: 60_000 });
    await health.ready;
    expect(health.part()).toEqual({ status: 'ready' });
    expect(states.report()).toEqual({ store: { state: 'ok', lastSuccessSecondsAgo: 0 } });
    health.close();
  });
});
