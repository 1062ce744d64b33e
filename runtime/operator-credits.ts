// Operator credit commands: `crucible-server operator grant-credits --org O --credits N --reason R`
// prints the ledger transaction id. Server side, straight to the database like every operator command; it imports only
// types from operator.ts, which merges these commands in at its end (no import cycle at evaluation time).
import { ServiceError } from '../domain/errors.ts';
import { grantCredits } from '../store/credits/ledger.ts';
import type { OperatorArgs, OperatorCommand } from './operator.ts';

function text(args: OperatorArgs, name: string): string {
  const value = args.flags[name];
  if (typeof value !== 'string' || value === '') throw new ServiceError('VALIDATION_FAILED', `--${name} is required for ${args.command}.`);
  return value;
}

export const CREDIT_OPERATOR_COMMANDS: Record<string, { usage: string; run: OperatorCommand }> = {
  'grant-credits': {
    usage: 'grant-credits --org O --credits N --reason R   (prints the transaction id)',
    async run(db, args) {
      const raw = text(args, 'credits');
      // Digits only: "1e3", "12.0" or "+5" are refused rather than reinterpreted.
      const credits = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
      const granted = await db.transaction((tx) =>
        grantCredits(tx, { org_id: text(args, 'org'), credits, reason: text(args, 'reason'), caused_by: 'operator' }),
      );
      return { transaction_id: granted.id, org_id: granted.org_id, credits: granted.credits };
    },
  },
};
