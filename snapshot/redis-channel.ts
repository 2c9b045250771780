// The publish channel across processes (REDIS_URL, docs/design.md "Production shape"): an
// announcement is one PUBLISH on a Redis pub/sub channel, heard by every process subscribed to it,
// so every gateway re-reads a changed pointer at once. Passes test/contracts/publish-channel.ts.
import type { Redis } from 'ioredis';
import type { Log } from '../runtime/log.ts';
import type { PublishChannel, PublishListener } from './notifications.ts';
import { openRedis, whenReady } from '../runtime/redis-connection.ts';

/**
 * How long announce may take. Past it the announcement is dropped with a warning and the build goes
 * on: a gateway also re-reads any pointer older than a second before using it (docs/design.md
 * "Gateway"), so a lost announcement costs a gateway at most that second, whereas an announce that
 * waited for Redis to come back would stall every build behind it.
 */
const ANNOUNCE_TIMEOUT_MS = 1_000;

const DEFAULT_CHANNEL_NAME = 'marquee:published';

export interface RedisChannelOptions {
  log: Log;
  /** The pub/sub channel; every process of one deployment uses the same one. */
  name?: string;
}

export class RedisPublishChannel implements PublishChannel {
  private readonly listeners = new Set<PublishListener>();
  private readonly log: Log;
  private readonly name: string;
  /**
   * Commands fail at once while disconnected instead of queueing: an announcement queued through
   * an outage would only arrive after the gateways had polled the pointer anyway.
   */
  private readonly publisher: Redis;
  /** Opened by the first subscribe: a process that only announces (a builder) never holds one. */
  private subscriber: Redis | undefined;
  /** Settles once this channel's SUBSCRIBE is in force (or could not be made, which is logged). */
  private subscribed: Promise<void> | undefined;
  /** Counts the stretches of delivery: one more each time the subscription is in force again after a lost connection. */
  private epoch = 0;
  private delivering = false;

  get deliveryEpoch(): number | undefined {
    return this.delivering ? this.epoch : undefined;
  }

  constructor(
    private readonly url: string,
    options: RedisChannelOptions,
  ) {
    this.log = options.log;
    this.name = options.name ?? DEFAULT_CHANNEL_NAME;
    this.publisher = openRedis(url, 'publish channel', this.log, { enableOfflineQueue: false, commandTimeout: ANNOUNCE_TIMEOUT_MS });
  }

  /** Resolves within about a second whatever Redis does; an announcement that could not be sent is a warning. */
  async announce(organizationId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not sent within ${ANNOUNCE_TIMEOUT_MS} ms`)), ANNOUNCE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.send(organizationId), timeout]);
    } catch (error) {
      this.log.warn(`publish announcement for organization ${organizationId} not sent; gateways see the new pointer within a second by polling`, {
        organizationId,
        err: error,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private async send(organizationId: string): Promise<void> {
    // A listener of this very channel hears what is announced after it subscribed: its SUBSCRIBE
    // must be in force before the PUBLISH. Every announcement passes the same steps, so one
    // announcer's messages leave (and arrive) in the order announce was called.
    await this.subscribed;
    await whenReady(this.publisher, ANNOUNCE_TIMEOUT_MS);
    await this.publisher.publish(this.name, organizationId);
  }

  subscribe(listener: PublishListener): () => void {
    this.listeners.add(listener);
    this.subscribed ??= this.openSubscriber();
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Closes both connections. Listeners hear nothing more; announce after close only warns. */
  async close(): Promise<void> {
    this.listeners.clear();
    this.publisher.disconnect();
    this.subscriber?.disconnect();
  }

  private openSubscriber(): Promise<void> {
    // SUBSCRIBE waits out an outage rather than failing, and ioredis subscribes again after every
    // reconnection (autoResubscribe). What is announced while a gateway is disconnected is not
    // replayed: its pointer polling covers that.
    const subscriber = openRedis(this.url, 'publish channel subscriber', this.log, { maxRetriesPerRequest: null });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.name) this.deliver(message);
    });
    this.subscriber = subscriber;
    // A lost connection is a gap: what is published until ioredis has subscribed again is not delivered.
    subscriber.on('close', () => {
      this.delivering = false;
    });
    subscriber.on('ready', () => {
      if (this.delivering || this.epoch === 0) return;
      this.epoch++;
      this.delivering = true;
    });
    return subscriber.subscribe(this.name).then(
      () => {
        this.epoch++;
        this.delivering = true;
      },
      (error: unknown) => this.log.warn('cannot subscribe to the Redis publish channel', { channel: this.name, err: error }),
    );
  }

  private deliver(organizationId: string): void {
    // A copy: a listener subscribed during this delivery hears only later announcements, and one
    // unsubscribed meanwhile (by itself or another listener) is skipped.
    for (const listener of [...this.listeners]) {
      if (!this.listeners.has(listener)) continue;
      try {
        listener(organizationId);
      } catch (error) {
        this.log.error('publish listener failed', { organizationId, err: error });
      }
    }
  }
}
