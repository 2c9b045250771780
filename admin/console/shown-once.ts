// A key's secret between the POST that made it and the page that shows it: the POST redirects
// (303) to a ticket, and the first view of the ticket takes the secret away. Held in memory for
// a few minutes at most; a reload or a stolen address later shows nothing.
import { randomBytes } from 'node:crypto';

const KEPT_MS = 5 * 60_000;

export class ShownOnce<T> {
  readonly #items = new Map<string, { value: T; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps `value` for one view; returns the ticket that names it. */
  put(value: T): string {
    this.#forgetExpired();
    const ticket = randomBytes(18).toString('base64url');
    this.#items.set(ticket, { value, expires: this.now() + KEPT_MS });
    return ticket;
  }

  /** The value, removed as it is taken; undefined when unknown, taken or expired. */
  take(ticket: string): T | undefined {
    this.#forgetExpired();
    const item = this.#items.get(ticket);
    this.#items.delete(ticket);
    return item?.value;
  }

  #forgetExpired(): void {
    const now = this.now();
    for (const [ticket, item] of this.#items) if (item.expires <= now) this.#items.delete(ticket);
  }
}
