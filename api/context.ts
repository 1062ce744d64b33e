// What every route receives: configuration, database, logger and the Temporal client.
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Config } from '../runtime/config.ts';
import type { Db } from '../store/db.ts';
import type { Scope } from '../domain/accounts/rules.ts';
import type { RouteDef } from './registry.ts';

export type Temporal = { client: Client; task_queue: string; namespace: string };

export type AppDeps = {
  config: Config;
  db: Db;
  logger: Logger;
  temporal: Temporal | null;
};

export type Auth =
  | { kind: 'session'; user_id: string; session_id: string; scopes: Scope[] }
  | { kind: 'token'; user_id: string; token_id: string; org_id: string; scopes: Scope[] };

export type State = { request_id: string; auth: Auth | null; route?: string; route_def?: RouteDef };
