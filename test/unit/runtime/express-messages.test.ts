// Requests and responses made by node:http with an Express app's prototypes from the start: what
// app.handle would set is already set, and Express serves them as it serves node's own.
import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { messageClassesOf } from '../../../runtime/express-messages.ts';

let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listen(app: express.Express, onArrival: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer({ ...messageClassesOf(app) }, (req, res) => {
    onArrival(req, res);
    app(req, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('messageClassesOf', () => {
  it("makes requests and responses whose prototypes are the app's before Express sees them", async () => {
    const app = express();
    const arrived: Array<{ request: boolean; response: boolean; nodeTypes: boolean }> = [];
    app.get('/x', (req, res) => {
      res.json({ path: req.path, sameApp: req.app === app && res.app === app, query: req.query.q });
    });
    const url = await listen(app, (req, res) =>
      arrived.push({
        request: Object.getPrototypeOf(req) === app.request,
        response: Object.getPrototypeOf(res) === app.response,
        nodeTypes: req instanceof IncomingMessage && res instanceof ServerResponse,
      }),
    );
    const reply = await fetch(`${url}/x?q=1`);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ path: '/x', sameApp: true, query: '1' });
    expect(arrived).toEqual([{ request: true, response: true, nodeTypes: true }]);
  });

  it("keeps what was added to the app's prototypes, before and after", async () => {
    const app = express();
    (app.request as unknown as { before: string }).before = 'added before';
    const classes = messageClassesOf(app);
    (app.response as unknown as { after: () => string }).after = () => 'added after';
    app.get('/x', (req, res) => {
      res.send(`${(req as unknown as { before: string }).before}, ${(res as unknown as { after: () => string }).after()}`);
    });
    server = createServer({ ...classes }, app);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const reply = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
    expect(await reply.text()).toBe('added before, added after');
  });
});
