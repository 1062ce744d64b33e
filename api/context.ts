// What every route receives: configuration, database, logger and the Temporal client.
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../runtime/config.ts';
import type { Db } from '../store/db.ts';
import type { Auth, RouteDef } from './registry.ts';

export type { Auth } from './registry.ts';

export type Temporal = { client: Client; task_queue: string; namespace: string };

export type AppDeps = {
  config: Config;
  db: Db;
  logger: Logger;
  temporal: Temporal | null;
};

/** `log_path`: what the request log shows instead of the URL, when the URL carries a credential. */
export type State = { request_id: string; auth: Auth | null; route?: string; route_def?: RouteDef; log_path?: string };
