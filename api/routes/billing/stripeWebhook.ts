import type Stripe from 'stripe';
import { isCheckoutEventType } from '../../../domain/billing/rules.ts';
import { WEBHOOK_BODY_BYTES_MAX, WebhookAck, WebhookEvent } from '../../../domain/contracts/billing.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { hasPrefix } from '../../../domain/ids.ts';
import { verifiedEvent } from '../../../integrations/stripe/client.ts';
import { findIntent } from '../../../store/billing/billing.ts';
import type { AppDeps } from '../../context.ts';
import { readRawBody } from '../../http/request.ts';
import { route, type RouteDef } from '../../registry.ts';
import { startCheckoutWorkflow } from './job.ts';

export function stripeWebhookRoute(deps: AppDeps): RouteDef {
  const { db, config } = deps;
  return route({
    method: 'post',
    path: '/v1/billing/stripe/webhook',
    operation_id: 'stripeWebhook',
    summary: "The payment provider's signed checkout events (not for clients)",
    tag: 'billing',
    feature: 'billing',
    auth: 'webhook',
    body_content: { 'application/json': { schema: WebhookEvent } },
    responses: { 200: { description: 'received (acted on, or ignored)', schema: WebhookAck } },
    handler: async (ctx) => {
      // spec: Authentication, Payment webhook — the signature covers the unmodified body, so it is read raw.
      const raw = await readRawBody(ctx, WEBHOOK_BODY_BYTES_MAX, 'WEBHOOK_BODY_BYTES_MAX');
      const event = verifiedEvent(config, raw, ctx.get('stripe-signature'));
      if (!event) {
        throw new ServiceError('VALIDATION_FAILED', 'The event signature is missing, invalid or too old.', [
          { path: '/headers/stripe-signature', message: 'is not a valid signature' },
        ]);
      }
      if (event.livemode !== config.stripe_live_mode) {
        throw new ServiceError(
          'VALIDATION_FAILED',
          `The event is from ${event.livemode ? 'live' : 'test'} mode; this deployment runs in ${config.stripe_live_mode ? 'live' : 'test'} mode.`,
          [{ path: '/livemode', message: 'does not match the deployment' }],
        );
      }
      const ignore = (why: string) => {
        ctx.status = 200;
        ctx.body = { received: true, ignored: why };
      };
      if (!isCheckoutEventType(event.type)) return ignore('unrelated event');
      const session = event.data.object as Stripe.Checkout.Session;
      const intent_id = session.metadata?.intent_id ?? session.client_reference_id ?? '';
      if (!hasPrefix(intent_id, 'pi')) return ignore('session without an intent');
      const intent = await findIntent(db, intent_id);
      if (!intent || (intent.session_id !== null && intent.session_id !== session.id)) return ignore('session without a matching intent');
      await startCheckoutWorkflow(deps, intent.id, intent.org_id ?? intent.owner_id, event.type, session.id);
      ctx.status = 200;
      ctx.body = { received: true };
    },
  });
}
