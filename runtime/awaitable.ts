// Values that are usually in memory and only sometimes loaded: the caches of the hot path return
// the value itself on a hit and a promise on a miss, so a request answered from memory runs to
// its response without an asynchronous hop (each hop is a microtask turn and an allocation).

export type Awaitable<T> = T | Promise<T>;

/**
 * `next(value)` at once when `value` is already there, after it settles otherwise. (Not named
 * `then`: a module exporting `then` is a thenable to dynamic import().)
 */
export function after<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
