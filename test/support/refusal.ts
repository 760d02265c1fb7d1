import { expect } from 'chai';
import { DomainError } from '../../domain/shared/domain-error';

/** The domain error a use case refused with, as the edge would show it (code and param); fails if it resolved. */
export async function refusal(promise: Promise<unknown>): Promise<{ code: string; param: string | null }> {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome, 'expected a refusal').to.be.instanceOf(DomainError);
  const error = outcome as DomainError;
  return { code: error.code, param: error.meta.param ?? null };
}
