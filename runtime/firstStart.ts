// The first start of a service: a first user and organization (ARCHITECTURE.md: Configuration) and, where the
// deployment gives one, the organization's welcome credits (docs/credits.md "Welcome credits").
// One transaction holds all of it: a crash between the steps leaves nothing, and the next start does the whole again;
// once the user exists, no later start creates or grants anything.
import { grantCredits } from '../store/credits/ledger.ts';
import type { Db } from '../store/db.ts';
import type { Config } from './config.ts';
import { bootstrap } from './operator.ts';

export const FIRST_USER_EMAIL = 'admin@localhost.localdomain';
export const FIRST_ORGANIZATION_NAME = 'My organization';
/** The ledger reason of the welcome grant; the screens and docs name it the same way. */
export const WELCOME_CREDITS_REASON = 'welcome credits';

/** The welcome grant's transfer id: one per organization, so a repeated grant is the same ledger row. */
export function welcomeTransferId(org_id: string): string {
  return `welcome:${org_id}`;
}

export type FirstStart = { user_id: string; email: string; password?: string; org_id: string; welcome_credits: number; welcome_transaction_id: string | null };

/** Creates the first user and organization and grants the welcome credits, once; null when a user already exists. */
export async function firstStart(db: Db, config: Pick<Config, 'welcome_credits'>): Promise<FirstStart | null> {
  return db.transaction(async (tx) => {
    const row = await tx.one<{ n: number }>('select count(*)::int as n from users');
    if ((row?.n ?? 0) > 0) return null;
    const created = await bootstrap(tx, FIRST_USER_EMAIL, FIRST_ORGANIZATION_NAME);
    if (config.welcome_credits === 0) return { ...created, welcome_credits: 0, welcome_transaction_id: null };
    const grant = await grantCredits(tx, {
      org_id: created.org_id,
      credits: config.welcome_credits,
      reason: WELCOME_CREDITS_REASON,
      caused_by: 'system',
      transfer_id: welcomeTransferId(created.org_id),
    });
    return { ...created, welcome_credits: grant.credits, welcome_transaction_id: grant.id };
  });
}
