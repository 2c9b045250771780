// Closing a server without cutting anyone off (runtime/http-server.ts), as a drain does: from
// endKeepAlive on every answer closes its connection; close() refuses new connections, waits for
// the request in flight, and ends the keep-alive connection it leaves idle.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { listenHttp } from '../../../runtime/http-server.ts';

const agent = new Agent({ keepAliveTimeout: 60_000 });
afterEach(async () => {
  await agent.close().catch(() => {});
});

describe('listenHttp', () => {
  it('answers with Connection: close from endKeepAlive on, and closes once the request in flight is answered, refusing new connections meanwhile', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached: () => void = () => {};
    const slowReached = new Promise<void>((resolve) => (reached = resolve));
    const server = createServer((req, res) => {
      if (req.url !== '/slow') return void res.end('fast');
      reached();
      void held.then(() => res.end('slow'));
    });
    const listening = await listenHttp(server, { host: '127.0.0.1', port: 0 });
    const before = await request(`${listening.url}/fast`, { dispatcher: agent });
    await before.body.text();
    expect(before.headers.connection).toBe('keep-alive');

    listening.endKeepAlive();
    const draining = await request(`${listening.url}/fast`, { dispatcher: agent });
    await draining.body.text();
    expect(draining.headers.connection).toBe('close');

    const slow = request(`${listening.url}/slow`, { dispatcher: agent });
    // In flight: its handler runs when the server starts closing.
    await slowReached;
    let closed = false;
    const closing = listening.close().then(() => (closed = true));
    await expect(request(`${listening.url}/fast`, { dispatcher: new Agent() })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(closed).toBe(false);
    release();
    const answer = await slow;
    expect({ body: await answer.body.text(), connection: answer.headers.connection }).toEqual({ body: 'slow', connection: 'close' });
    await closing;
    expect(closed).toBe(true);
  });
});
