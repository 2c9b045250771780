// How many retries a client of a backend may make: a share of the requests that succeed. A backend
// that fails now and then gets its retries, and they hide the failures; a backend that fails most
// requests (overwhelmed, or down) gets hardly any, so that a client does not multiply the load on
// it by its number of attempts just when it can least take it. A token bucket, as the AWS SDK's
// standard retry mode has for S3 requests: each retry spends a token, every few successes earn one
// back, and a full bucket holds enough for a burst of failures after a quiet time.
export interface RetryBudgetOptions {
  /** Retries in a full bucket: that many may be made in a row with no success between. */
  capacity?: number;
  /** Successes that earn one retry back. */
  successesPerRetry?: number;
}

export class RetryBudget {
  private readonly successesPerRetry: number;
  /** Kept in successes, a whole number, so that ten tenths make exactly one retry. */
  private readonly full: number;
  private balance: number;

  constructor(options: RetryBudgetOptions = {}) {
    this.successesPerRetry = options.successesPerRetry ?? 10;
    this.full = (options.capacity ?? 20) * this.successesPerRetry;
    this.balance = this.full;
  }

  /** Whether a failed request may be tried again; if so, the retry is paid for. */
  spend(): boolean {
    if (this.balance < this.successesPerRetry) return false;
    this.balance -= this.successesPerRetry;
    return true;
  }

  succeeded(): void {
    if (this.balance < this.full) this.balance++;
  }
}
