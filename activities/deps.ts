import type { Logger } from 'pino';
import type { Config } from '../runtime/config.ts';
import type { Db } from '../store/db.ts';

/** What activities need: they touch the world only through these. */
export type ActivityDeps = { config: Config; db: Db; logger: Logger };
