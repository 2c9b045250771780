// A deadline for a reply that measures the peer, not this process. A timer that fires after a
// stall of the event loop (a long garbage collection, the process stopped and continued, a CPU
// shared with busier neighbours) fires before the loop reads the sockets: a reply that arrived
// during the stall is still unread, and a plain timeout would call a prompt peer unresponsive.
// So when the time is up, the verdict waits for the loop's next poll for I/O (setImmediate runs
// just after it): a reply already received settles first.

/** Thrown when `promise` was not settled by the deadline. */
export class DeadlineExceeded extends Error {
  constructor(what: string, ms: number) {
    super(`${what} not answered within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/** Settles as `promise` does, or rejects with DeadlineExceeded if it has not once `ms` have passed and the sockets have been read since. */
export function withinDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new DeadlineExceeded(what, ms));
      });
    }, ms);
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
