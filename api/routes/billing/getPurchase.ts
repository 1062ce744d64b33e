import { Purchase } from '../../../domain/contracts/billing.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { findIntent, type IntentRow } from '../../../store/billing/billing.ts';
import { findProgram, isSponsorAdmin } from '../../../store/sponsors/sponsors.ts';
import { authorizeOwned } from '../../auth.ts';
import type { AppDeps } from '../../context.ts';
import { route, type RouteDef } from '../../registry.ts';
import { presentPurchase } from './present.ts';

export function getPurchaseRoute(deps: AppDeps): RouteDef {
  const { db } = deps;
  return route({
    method: 'get',
    path: '/v1/billing/purchases/{intent_id}',
    operation_id: 'getPurchase',
    summary: 'A purchase: its status and the confirmed ledger transaction',
    tag: 'billing',
    no_store: true,
    feature: 'billing',
    auth: 'user',
    scope: 'read',
    role: 'admin',
    pollable: true,
    responses: { 200: { description: 'the purchase', schema: Purchase } },
    handler: async (ctx, { params, auth }) => {
      const row = await findIntent(db, params.intent_id);
      const what = `Purchase ${params.intent_id}`;
      if (row?.program_id) {
        // A program's purchase: its institution's administrators, signed in; still readable once the program closed or expired.
        const program = await findProgram(db, row.program_id);
        if (auth.kind !== 'session' || !program || !(await isSponsorAdmin(db, program.institution_id, auth.user_id))) {
          throw new ServiceError('NOT_FOUND', `${what} was not found.`);
        }
        ctx.body = presentPurchase(row);
        return;
      }
      const owned = await authorizeOwned(deps, ctx, what, row?.org_id ? (row as IntentRow & { org_id: string }) : undefined);
      ctx.body = presentPurchase(owned);
    },
  });
}
