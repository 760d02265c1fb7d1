/**
 * Polls until `probe` returns a truthy value and resolves with it; rejects after `timeoutMs`. For outcomes
 * that arrive asynchronously (relay, consumers, adapters); prefer a ManualClock where time itself matters.
 */
export async function eventually<T>(probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
