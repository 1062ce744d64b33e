// Operator credit commands: `crucible-server operator grant-credits --org O --credits N --reason R`
// prints the ledger transaction id. Server side, straight to the database like every operator command; operator.ts merges
// these commands into its own list.
import { grantCredits } from '../store/credits/ledger.ts';
import { flag, type OperatorCommands } from './operator-command.ts';

export const CREDIT_OPERATOR_COMMANDS: OperatorCommands = {
  'grant-credits': {
    usage: 'grant-credits --org O --credits N --reason R   (prints the transaction id)',
    async run(db, args) {
      const raw = flag(args, 'credits');
      // Digits only: "1e3", "12.0" or "+5" are refused rather than reinterpreted.
      const credits = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
      const granted = await db.transaction((tx) =>
        grantCredits(tx, { org_id: flag(args, 'org'), credits, reason: flag(args, 'reason'), caused_by: 'operator' }),
      );
      return { transaction_id: granted.id, org_id: granted.org_id, credits: granted.credits };
    },
  },
};
