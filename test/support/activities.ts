// Activities only the test workflows use (test/support/workflows/). The harness registers them beside the production
// activities, behind the same failure boundary (activities/index.ts), so tests see exactly what production would.
import { Context } from '@temporalio/activity';
import type { ActivityDeps } from '../../activities/deps.ts';
import type { SettleCreditsInput } from '../../activities/ledger.ts';
import { ServiceError } from '../../domain/errors.ts';
import { settle, type ResolutionView } from '../../store/credits/ledger.ts';

/** Attempts of `failingProbe` per probe id, counted where the activity runs (the worker shares this process). */
export const probeAttempts = new Map<string, number>();

export function testActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    /** Test work: "uses" `credits`, or fails the way a provider outage that will not recover does. */
    async creditProbeWork(input: { credits: number; fail?: boolean }): Promise<{ credits_used: number }> {
      if (input.fail) throw new ServiceError('PROVIDER_ERROR', 'The probe work failed on the service side (simulated).');
      return { credits_used: input.credits };
    },
    /** Test settle that commits, then crashes on its first attempt as a worker dying before reporting completion would. */
    async creditProbeSettleCrashingOnce(input: SettleCreditsInput): Promise<ResolutionView> {
      const result = await db.transaction((tx) => settle(tx, input));
      if (Context.current().info.attempt === 1) throw new Error('simulated crash after the settlement committed');
      return result;
    },
    /** Counts its attempts, then throws what it is told to: a ServiceError, a plain Error, or an assertion. */
    async failingProbe(input: { probe_id: string; throws: 'service_error' | 'internal' | 'plain_error' }): Promise<never> {
      probeAttempts.set(input.probe_id, (probeAttempts.get(input.probe_id) ?? 0) + 1);
      if (input.throws === 'service_error') throw new ServiceError('CONFLICT', 'the probe refuses (a rule said no)', { probe_id: input.probe_id });
      if (input.throws === 'internal') throw new ServiceError('INTERNAL', 'invariant violated: the probe broke one');
      throw new Error('the probe failed the way a lost connection does');
    },
  };
}
