import { DomainError } from '../../domain/shared/domain-error';

/**
 * A list's `startingAfter` must be an item of the caller's organization and environment: any other string compares
 * as an id all the same and answers a page that looks real (or empty). The refusal reads the same whether the id
 * exists elsewhere or nowhere, so it says nothing about other environments. `find` looks the id up in the caller's
 * scope.
 */
export async function assertCursorInScope(startingAfter: string | undefined, resource: string, find: (id: string) => Promise<unknown>): Promise<void> {
  if (startingAfter === undefined || (await find(startingAfter))) return;
  throw new DomainError('validation_failed', `No such ${resource} in this environment: query.startingAfter must be the id of the last ${resource} of the previous page.`, {
    param: 'query.startingAfter',
  });
}
