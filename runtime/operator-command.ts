// The shape of an operator command, shared by runtime/operator.ts (which runs them) and the rooms' command lists
// (operator-credits.ts, operator-sponsors.ts, operator-billing.ts) without an import circle.
import { ServiceError } from '../domain/errors.ts';
import type { Db } from '../store/db.ts';
import type { Config } from './config.ts';

export type OperatorArgs = {
  command: string;
  flags: Record<string, string | boolean>;
  stdin?: string;
  /** Commands that call an external system (billing's price check) use it; read from the environment when absent. */
  config?: Config;
};
export type OperatorCommand = (db: Db, args: OperatorArgs) => Promise<Record<string, unknown>>;
export type OperatorCommands = Record<string, { usage: string; run: OperatorCommand }>;

/** A required string flag (`--name value`); missing or empty is 422 naming the flag and the command. */
export function flag(args: OperatorArgs, name: string): string {
  const value = args.flags[name];
  if (typeof value !== 'string' || value === '') throw new ServiceError('VALIDATION_FAILED', `--${name} is required for ${args.command}.`);
  return value;
}
