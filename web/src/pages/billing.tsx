// Billing (spec: Billing pack and purchase intent; Billing endpoints; Events rule 6), shown only when the billing flag is
// on: the packs on sale, Buy (signed-in owner or admin) → Stripe Checkout → back to the purchase status page, which
// polls the intent. The redirect back never says "paid": only the intent's status, set from the provider's confirmed
// session, does.
import { client, newOperationKey, unwrap } from '../client.ts';
import type { Pack, Packs, Purchase } from '../types.ts';
import { TechnicalDetails } from '../technical.tsx';
import { Action, ErrorBanner, Link, Status, formatDate, formatNumber, useAction, useBalanceChangedOn, useLoad, useLocation, useSession } from '../ui.tsx';

/** How often a pending purchase is read again while the page is open. */
const PURCHASE_POLL_MS = 2000;

export function formatUsd(amount_cents: number): string {
  return (amount_cents / 100).toLocaleString(undefined, { style: 'currency', currency: 'USD' });
}

/** Starts a checkout for an organization or a program and sends the browser to the provider's page. */
export function useCheckout(owner: { org_id: string } | { program_id: string }) {
  return useAction(async (pack_key: string) => {
    const checkout = await client.POST('/v1/billing/checkout', { body: { pack_key, ...owner }, idempotencyKey: newOperationKey() }).then(unwrap);
    window.location.assign(checkout.url);
  });
}

export function PackList({ packs, onBuy, canBuy, pending }: { packs: Packs; onBuy(pack: Pack): void; canBuy: boolean; pending: boolean }) {
  return (
    <>
      {!packs.live_mode && <p className="warning">Test mode: payments go to the provider's test environment; no real card is charged.</p>}
      {packs.data.length === 0 && <p className="muted">No credit pack is on sale yet.</p>}
      <ul className="cards">
        {packs.data.map((pack) => (
          <li key={pack.pack_key} data-testid="pack">
            <strong>{pack.title}</strong>
            <span>
              {formatNumber(pack.credits)} credits for <strong>{formatUsd(pack.amount)}</strong>
            </span>
            {canBuy && (
              <Action variant="primary" isDisabled={pending} onPress={() => onBuy(pack)} aria-label={`Buy ${pack.title}`}>
                Buy
              </Action>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

export function BillingPage() {
  const { me, org_id } = useSession();
  const packs = useLoad(() => client.GET('/v1/billing/packs').then(unwrap), []);
  const role = me.memberships.find((m) => m.org_id === org_id)?.role;
  const canBuy = role === 'owner' || role === 'admin';
  const checkout = useCheckout({ org_id });
  return (
    <>
      <h1>Buy credits</h1>
      <section aria-labelledby="packs-heading">
        <h2 id="packs-heading">Credit packs</h2>
        <p className="muted">
          One-time packs for {me.memberships.find((m) => m.org_id === org_id)?.org_name}. Payment happens on the provider's checkout page; credits are added
          once the provider confirms the payment.
        </p>
        {!canBuy && <p className="muted">Only an organization owner or admin can buy credits; you are {role}.</p>}
        <ErrorBanner error={packs.error ?? checkout.error} />
        {packs.value && <PackList packs={packs.value} canBuy={canBuy} pending={checkout.pending} onBuy={(pack) => void checkout.run(pack.pack_key)} />}
        {checkout.pending && <p aria-live="polite">Opening the checkout…</p>}
      </section>
    </>
  );
}

/** What a purchase's state means for the person: waiting for the provider, paid, failed or refunded. */
function PurchaseState({ p, canceled, onRecheck }: { p: Purchase; canceled: boolean; onRecheck(): void }) {
  return (
    <div aria-live="polite" data-testid="purchase-status">
      {p.status === 'pending' && (
        <>
          <p>
            <strong>Waiting for the payment provider to confirm the payment.</strong> Coming back from the checkout page does not by itself mean you paid; this
            page checks every {PURCHASE_POLL_MS / 1000} seconds and updates when the provider confirms.
          </p>
          {canceled && <p className="muted">You left the checkout page. If you did pay, the purchase completes here once the provider confirms it.</p>}
          <p className="muted small">You can close this page: the purchase completes without it, and this address shows its state later.</p>
          <Action onPress={onRecheck}>Check now</Action>
        </>
      )}
      {p.status === 'completed' && (
        <div className="ok" role="status">
          <p>
            Paid: {formatNumber(p.credits)} credits were added {p.program_id ? "to the program's pool" : 'to your balance'}.
          </p>
          {p.transaction_id && (
            <TechnicalDetails summary="Technical details of the payment">
              <p>
                Ledger transaction <code>{p.transaction_id}</code>
              </p>
            </TechnicalDetails>
          )}
          <Link to="/settings">See your balance and ledger</Link>
        </div>
      )}
      {p.status === 'failed' && (
        <div className="error" role="alert">
          <p className="error-message">The payment failed or the checkout expired. No credits were added.</p>
          <Link to="/billing">Start a new purchase</Link>
        </div>
      )}
      {p.status === 'refunded' && <p>This purchase was refunded.</p>}
    </div>
  );
}

function PurchaseFacts({ p }: { p: Purchase }) {
  const { me } = useSession();
  return (
    <dl className="spec">
      <div>
        <dt>For</dt>
        <dd>{p.org_id ? (me.memberships.find((m) => m.org_id === p.org_id)?.org_name ?? 'your organization') : "a sponsor program's pool"}</dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd>{formatDate(p.created_at)}</dd>
      </div>
      {p.status === 'pending' && (
        <div>
          <dt>Checkout link expires</dt>
          <dd>{formatDate(p.expires_at)}</dd>
        </div>
      )}
    </dl>
  );
}

/** The page Checkout returns to (`/billing/done?intent_id=…`) and a purchase's own address (`/billing/purchases/{id}`). */
export function PurchasePage({ intent_id }: { intent_id?: string }) {
  const { search } = useLocation();
  const id = intent_id ?? search.get('intent_id') ?? '';
  const canceled = search.get('canceled') === 'true';
  const purchase = useLoad(() => client.GET('/v1/billing/purchases/{intent_id}', { path: { intent_id: id } }).then(unwrap), [id], {
    ms: PURCHASE_POLL_MS,
    until: (p) => p.status !== 'pending',
  });
  const recheck = useAction(async () => purchase.reload());
  // a purchase completed (or refunded) while the page is open changes the header's balance
  useBalanceChangedOn(purchase.value?.status);
  if (!id) {
    return (
      <>
        <h1>Purchase</h1>
        <p>
          This address needs a purchase id. <Link to="/billing">Go to billing</Link>.
        </p>
      </>
    );
  }
  const p = purchase.value;
  return (
    <>
      <p className="crumbs">
        <Link to="/billing">Billing</Link> /
      </p>
      <h1>Purchase</h1>
      <ErrorBanner error={purchase.error} />
      {p && (
        <section aria-labelledby="purchase-heading">
          <h2 id="purchase-heading">
            {formatNumber(p.credits)} credits · {formatUsd(p.amount)} <Status value={p.status} />
          </h2>
          {!p.live_mode && (
            <p className="muted" data-testid="test-purchase">
              Test purchase: no real card is charged.
            </p>
          )}
          <PurchaseState p={p} canceled={canceled} onRecheck={() => void recheck.run()} />
          <PurchaseFacts p={p} />
          <TechnicalDetails>
            <p>
              Purchase <code>{p.intent_id}</code> · pack {p.pack_key} · {p.org_id ? `organization ${p.org_id}` : `program ${p.program_id}`}
              {p.session_id ? ` · checkout session ${p.session_id}` : ''} · {p.live_mode ? 'live mode' : 'test mode'}
            </p>
          </TechnicalDetails>
        </section>
      )}
    </>
  );
}
