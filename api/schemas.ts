// Shared request pieces of the route declarations; the bodies themselves are in domain/contracts/.
import { Type } from 'typebox';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, PAGE_OFFSET_MAX } from '../domain/contracts/common.ts';

/** One paging shape everywhere: `offset`, `limit` (1 to limit_max), answered with `next_offset`. */
export function pageQuery(limit_max = PAGE_LIMIT_MAX, limit_default = PAGE_LIMIT_DEFAULT) {
  return {
    offset: { schema: Type.Integer({ minimum: 0, maximum: PAGE_OFFSET_MAX }), description: 'items to skip', default: 0 },
    limit: { schema: Type.Integer({ minimum: 1, maximum: limit_max }), description: `1 to ${limit_max}, default ${limit_default}`, default: limit_default },
  } as const;
}
export const PageQuery = pageQuery();
