// A loopback TCP proxy between Marquee processes and one backend, whose behaviour a fault test switches at run time.
//
// Faults, applied to every connection, open or new, from the moment they are set:
// - pass: bytes go through as they come.
// - delay(ms): every chunk, in either direction, goes on `ms` after it arrived (in order), and a new
//   connection reaches the backend `ms` late; the client's own connect succeeds at once (the kernel
//   accepts it), so its first sign of trouble is a late first answer, as behind a slow link.
// - reset: open connections are destroyed with a TCP RST on both sides, and new ones as soon as they
//   are accepted.
// - truncate(bytes): of what the backend sends on a connection from then on, the first `bytes` reach
//   the client, then both sides are closed: the answer crossing that mark arrives cut short.
// - blackhole: connections are accepted and nothing is forwarded; what was held goes on, in order,
//   once the fault is lifted, as across a network partition that heals.
// `watch` sees what clients send before the fault applies to it, so a test can switch the fault at
// the moment a given request goes by (a build's first write, its lock, its transaction).
// Held chunks are kept in memory without backpressure: test traffic is small.
import { type AddressInfo, createServer, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type Fault = { kind: 'pass' } | { kind: 'delay'; ms: number } | { kind: 'reset' } | { kind: 'truncate'; bytes: number } | { kind: 'blackhole' };

export interface FaultProxy {
  /** The loopback port clients use instead of the backend's. */
  port: number;
  set(fault: Fault): void;
  /** Calls `listener` with every chunk a client sends, before the fault applies to it; returns the unsubscribe. */
  watch(listener: (chunk: Buffer) => void): () => void;
  /** How often a fault acted (a chunk held, a connection reset, an answer cut): a test checks its fault met traffic. */
  readonly stats: { faulted: number };
  close(): Promise<void>;
}

/** One client connection and its connection to the backend. */
interface Link {
  client: Socket;
  upstream: Socket;
  /** Which setting of the fault this link counts for (each `set` starts a new count), and the bytes it let through. */
  truncation: { setting: number; sent: number };
}

/** A promise and what resolves it (Promise.withResolvers is Node 22). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Destroys both sockets with a TCP RST where they have one. */
function resetBoth(link: Link): void {
  for (const socket of [link.client, link.upstream]) {
    // resetAndDestroy throws on a socket whose handle is gone (never connected, already closed).
    try {
      socket.resetAndDestroy();
    } catch {
      socket.destroy();
    }
  }
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let fault: Fault = { kind: 'pass' };
  /** Bumped by every `set`. */
  let setting = 0;
  let blackholeLifted = deferred();
  const links = new Set<Link>();
  const listeners = new Set<(chunk: Buffer) => void>();
  const stats = { faulted: 0 };

  /** When something arriving now may go on: undefined for at once. */
  function hold(): Promise<void> | undefined {
    if (fault.kind === 'delay') {
      stats.faulted++;
      return sleep(fault.ms);
    }
    if (fault.kind === 'blackhole') {
      stats.faulted++;
      return blackholeLifted.promise;
    }
    return undefined;
  }

  function reset(link: Link): void {
    stats.faulted++;
    resetBoth(link);
  }

  /** Writes the backend's chunk to the client, unless a truncate fault cuts it (and the connection) short. */
  function deliver(link: Link, chunk: Buffer): void {
    if (link.client.destroyed) return;
    if (fault.kind !== 'truncate') {
      link.client.write(chunk);
      return;
    }
    if (link.truncation.setting !== setting) link.truncation = { setting, sent: 0 };
    const room = fault.bytes - link.truncation.sent;
    if (chunk.length <= room) {
      link.truncation.sent += chunk.length;
      link.client.write(chunk);
      return;
    }
    stats.faulted++;
    link.client.end(chunk.subarray(0, Math.max(room, 0)));
    link.upstream.destroy();
  }

  function accept(client: Socket): void {
    client.on('error', () => {});
    const upstream = new Socket({ allowHalfOpen: true });
    upstream.on('error', () => {});
    const link: Link = { client, upstream, truncation: { setting: -1, sent: 0 } };
    if (fault.kind === 'reset') {
      reset(link);
      return;
    }
    links.add(link);
    // Each direction is a chain, so that held chunks keep their order and an end follows the data before it.
    // A destroyed socket would connect again if asked: a client gone while the connection was held opens none.
    let toUpstream: Promise<unknown> = Promise.resolve(hold()).then(
      () => new Promise<void>((connected) => (client.destroyed ? undefined : upstream.connect(target.port, target.host, connected))),
    );
    let toClient: Promise<unknown> = Promise.resolve();
    const after = (chain: Promise<unknown>, wait: Promise<void> | undefined, then: () => void) => chain.then(() => wait).then(then);
    client.on('data', (chunk: Buffer) => {
      for (const listener of listeners) listener(chunk);
      if (client.destroyed) return;
      toUpstream = after(toUpstream, hold(), () => {
        if (!upstream.destroyed) upstream.write(chunk);
      });
    });
    client.on('end', () => {
      toUpstream = after(toUpstream, undefined, () => upstream.end());
    });
    upstream.on('data', (chunk: Buffer) => {
      toClient = after(toClient, hold(), () => deliver(link, chunk));
    });
    upstream.on('end', () => {
      toClient = after(toClient, undefined, () => client.end());
    });
    client.once('close', () => {
      links.delete(link);
      upstream.destroy();
    });
    // The backend went away (refused, reset): the client learns it after what was already on its way.
    upstream.once('close', (hadError) => {
      toClient = after(toClient, undefined, () => (hadError ? resetBoth(link) : client.end()));
    });
  }

  const server = createServer({ allowHalfOpen: true }, accept);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    set(next) {
      if (fault.kind === 'blackhole' && next.kind !== 'blackhole') {
        blackholeLifted.resolve();
        blackholeLifted = deferred();
      }
      fault = next;
      setting++;
      if (next.kind === 'reset') for (const link of links) reset(link);
    },
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stats,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      blackholeLifted.resolve();
      await closed;
    },
  };
}
