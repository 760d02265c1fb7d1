import type { JsonSchema } from './validation';

/** Query fields every cursor-paged list accepts (page size 1 to 100, default 25). */
export const PAGE_QUERY_PROPERTIES: Record<string, JsonSchema> = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  startingAfter: { type: 'string', minLength: 1, maxLength: 128 },
};

export interface ListBody<T> {
  readonly object: 'list';
  readonly data: T[];
  readonly hasMore: boolean;
  readonly totalCount?: number;
}

/**
 * Builds a list body from rows fetched with `limit + 1` (the extra row only says whether more exist).
 */
export function listBody<T, R = T>(rows: readonly T[], limit: number, map: (row: T) => R, extra: { totalCount?: number } = {}): ListBody<R> {
  const page = rows.slice(0, limit).map(map);
  return { object: 'list', data: page, hasMore: rows.length > limit, ...extra };
}
