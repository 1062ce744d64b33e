// Operator billing commands (spec: Billing pack and purchase intent — the operator binds an approved provider price to
// an integer credit entitlement; there are no built-in monetary prices):
//   pack bind --key K --title T --price PRICE_ID --credits N   (the price is retrieved and checked first)
//   pack list | pack retire --key K
//   purchase flagged                       (intents flagged for investigation: late completions, mismatches)
//   purchase refunded --intent I --reason R  (records a refund made in the provider's dashboard)
// Server side like every operator command; operator.ts merges this list into its own.
import { PACK_KEY_PATTERN, PACK_TITLE_LENGTH_MAX } from '../domain/billing/rules.ts';
import { ServiceError } from '../domain/errors.ts';
import { currentPrice } from '../integrations/stripe/prices.ts';
import { bindPack, listFlaggedIntents, listPacks, markRefunded, retirePack } from '../store/billing/billing.ts';
import { loadConfig } from './config.ts';
import { flag, type OperatorCommands } from './operator-command.ts';

export const BILLING_OPERATOR_COMMANDS: OperatorCommands = {
  'pack bind': {
    usage: 'pack bind --key K --title T --price PRICE_ID --credits N   (checks the price with the provider)',
    async run(db, args) {
      const config = args.config ?? loadConfig();
      const pack_key = flag(args, 'key');
      if (!PACK_KEY_PATTERN.test(pack_key)) throw new ServiceError('VALIDATION_FAILED', '--key must be 1 to 64 lower-case letters, digits, _ or -.');
      const title = flag(args, 'title').trim();
      if (title.length === 0 || title.length > PACK_TITLE_LENGTH_MAX)
        throw new ServiceError('VALIDATION_FAILED', `--title must have 1 to ${PACK_TITLE_LENGTH_MAX} characters.`);
      const raw = flag(args, 'credits');
      const credits = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
      if (!Number.isSafeInteger(credits) || credits < 1)
        throw new ServiceError('VALIDATION_FAILED', '--credits must be a whole number from 1 to 9007199254740991.');
      const price_id = flag(args, 'price');
      const price = await currentPrice(config, { price_id });
      const pack = await db.transaction((tx) => bindPack(tx, { pack_key, title, price_id, credits, live_mode: config.stripe_live_mode }));
      return {
        pack_key: pack.pack_key,
        title: pack.title,
        price_id: pack.price_id,
        credits: pack.credits,
        amount: price.amount,
        currency: price.currency,
        live_mode: pack.live_mode,
      };
    },
  },
  'pack list': {
    usage: 'pack list   (every pack, retired ones too)',
    async run(db) {
      const packs = await listPacks(db, { include_retired: true });
      return { packs };
    },
  },
  'pack retire': {
    usage: 'pack retire --key K   (no new checkouts; existing purchases are unaffected)',
    async run(db, args) {
      const pack = await db.transaction((tx) => retirePack(tx, flag(args, 'key')));
      return { pack_key: pack.pack_key, retired_at: pack.retired_at };
    },
  },
  'purchase flagged': {
    usage: 'purchase flagged   (purchase intents that need an operator: late completions, mismatched payments)',
    async run(db) {
      const intents = await listFlaggedIntents(db);
      return {
        intents: intents.map((i) => ({
          intent_id: i.id,
          owner_id: i.owner_id,
          status: i.status,
          session_id: i.session_id,
          reason: i.flagged_reason,
          flagged_at: i.flagged_at,
        })),
      };
    },
  },
  'purchase refunded': {
    usage: 'purchase refunded --intent I --reason R   (after refunding in the provider dashboard: completed → refunded)',
    async run(db, args) {
      const intent = await db.transaction((tx) => markRefunded(tx, flag(args, 'intent'), flag(args, 'reason')));
      return { intent_id: intent.id, status: intent.status };
    },
  },
};
