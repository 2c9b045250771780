// LISTEN for the PostgreSQL backend (postgres.ts): one connection of its own for every channel,
// reconnecting after the server is lost.
import pg from 'pg';
import { failureReason, PlatformDatabaseError, quoteIdentifier } from './sql.ts';

interface Subscription {
  onPayload: (payload: string) => void;
  onReconnect: (() => void) | undefined;
}

/**
 * LISTEN needs a connection of its own that stays open (a pooled one would be handed to other
 * queries). One listener connection serves every channel; it is opened on the first listen,
 * closed after the last unsubscribe, and reconnects after losing the server (every second until
 * it is back), so change-triggered builds resume after a database restart. Each subscription is
 * told once listening has resumed: notifications sent meanwhile are lost, so the caller catches
 * up from that moment on (a full build reads after it, and later changes are heard again).
 */
export class PostgresListener {
  private readonly handlers = new Map<string, Set<Subscription>>();
  private client: Promise<pg.Client> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly config: pg.ClientConfig) {}

  async listen(channel: string, subscription: Subscription): Promise<() => Promise<void>> {
    let channelHandlers = this.handlers.get(channel);
    const isNewChannel = channelHandlers === undefined;
    if (!channelHandlers) {
      channelHandlers = new Set();
      this.handlers.set(channel, channelHandlers);
    }
    channelHandlers.add(subscription);
    if (isNewChannel) {
      try {
        const client = await this.connection();
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      } catch (error) {
        this.handlers.delete(channel);
        throw error;
      }
    }
    return async () => {
      channelHandlers.delete(subscription);
      if (channelHandlers.size > 0 || this.handlers.get(channel) !== channelHandlers) return;
      this.handlers.delete(channel);
      if (this.handlers.size === 0) {
        await this.disconnect();
      } else {
        const client = await this.connection();
        await client.query(`UNLISTEN ${quoteIdentifier(channel)}`);
      }
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    await this.disconnect();
  }

  private connection(): Promise<pg.Client> {
    this.client ??= this.connect();
    return this.client;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    client.on('notification', (message) => {
      for (const subscription of this.handlers.get(message.channel) ?? []) subscription.onPayload(message.payload ?? '');
    });
    client.on('error', () => this.scheduleReconnect(client));
    client.on('end', () => this.scheduleReconnect(client));
    try {
      await client.connect();
    } catch (error) {
      this.client = undefined;
      throw new PlatformDatabaseError(`cannot open the change listener connection: ${failureReason(error)}`, { cause: error });
    }
    return client;
  }

  private scheduleReconnect(lost: pg.Client): void {
    void this.client?.then((current) => {
      if (current !== lost || this.closed || this.reconnectTimer) return;
      this.client = undefined;
      this.reconnectTimer = setTimeout(() => void this.relisten(), 1000);
      this.reconnectTimer.unref();
    });
  }

  private async relisten(): Promise<void> {
    this.reconnectTimer = undefined;
    if (this.closed || this.handlers.size === 0) return;
    try {
      const client = await this.connection();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    } catch {
      const lost = await this.client?.catch(() => undefined);
      this.client = undefined;
      if (lost) await lost.end().catch(() => {});
      this.reconnectTimer = setTimeout(() => void this.relisten(), 1000);
      this.reconnectTimer.unref();
      return;
    }
    // Only once every LISTEN is in force: whatever the caller reads from now on, a later change is heard.
    for (const subscription of [...this.handlers.values()].flatMap((subscriptions) => [...subscriptions])) subscription.onReconnect?.();
  }

  private async disconnect(): Promise<void> {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    this.client = undefined;
    const open = await client?.catch(() => undefined);
    await open?.end().catch(() => {});
  }
}
