/**
 * Waits for every piece of work of a batch run concurrently and counts those that resolved true; the first failure,
 * if any, is rethrown only once all have finished (one failing item must not cut the others short).
 */
export async function countDone(work: ReadonlyArray<Promise<boolean>>): Promise<number> {
  const outcomes = await Promise.allSettled(work);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value).length;
}
