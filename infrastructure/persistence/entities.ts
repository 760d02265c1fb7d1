/**
 * MikroORM entity schemas of every module. Register one line per schema here.
 * (Repositories written with SQL through the entity manager need no schema.)
 */
import type { EntitySchema } from '@mikro-orm/core';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const ENTITIES: EntitySchema<any>[] = [];
