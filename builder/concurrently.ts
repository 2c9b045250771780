// A task over many items, a bounded number at once: enough to hide a network store's latency,
// few enough not to flood it. Results come back in the items' order, so whatever is reported from
// them reads the same whatever order the tasks finished in.
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) results[index] = await task(items[index]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
