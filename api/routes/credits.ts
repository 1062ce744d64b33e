// Reading an organization's credits and ledger (spec: Credit ledger). Members only, scope read;
// another organization's credits are a plain 404. Writes happen in workflows (the saga), the operator's grant-credits,
// sponsors' allocations and billing's purchases, never through these routes.
import { Type } from 'typebox';
import { SUBJECT_KINDS, TRANSFER_KINDS, TRANSFER_STATUSES } from '../../domain/credits/rules.ts';
import { balances, listLedger } from '../../store/credits/ledger.ts';
import { authorizeOrg} from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page} from '../http.ts';
import { route, type RouteDef } from '../registry.ts';
import { Credits, CREDITS_MAX, Id, Page, PageQuery, Timestamp } from '../schemas.ts';

const SignedCredits = Type.Integer({ minimum: -CREDITS_MAX, maximum: CREDITS_MAX, description: 'signed change to the available credits' });
const CreditsNamed = (description: string) => Type.Integer({ minimum: 0, maximum: CREDITS_MAX, description });

const SourceOut = Type.Object(
  {
    source: Type.Union([Type.Literal('own'), Type.Literal('sponsored')]),
    program_id: Type.Optional(Type.String({ description: 'the sponsor program (sponsored balances)' })),
    ends_at: Type.Optional(Timestamp),
    ended: Type.Optional(Type.Boolean({ description: 'the program has ended: its balance is no longer spendable' })),
    available_credits: Credits,
    reserved_credits: Credits,
  },
  { title: 'CreditSource' },
);

export const CreditsOut = Type.Object(
  {
    org_id: Id('org'),
    available_credits: CreditsNamed('spendable now: sponsored balances of running programs plus own credits'),
    reserved_credits: CreditsNamed('held by reservations of unfinished work'),
    sources: Type.Array(SourceOut, { description: 'in funding order: sponsored (program ending soonest first), then own' }),
  },
  { title: 'OrganizationCredits' },
);

const Subject = Type.Object({ project_id: Type.String(), kind: Type.Union(SUBJECT_KINDS.map((k) => Type.Literal(k))), id: Type.String() });

export const LedgerEntryOut = Type.Object(
  {
    id: Id('txn'),
    kind: Type.Union(TRANSFER_KINDS.map((k) => Type.Literal(k))),
    status: Type.Union(TRANSFER_STATUSES.map((s) => Type.Literal(s))),
    credits: Credits,
    available_change_credits: SignedCredits,
    org_id: Type.Union([Id('org'), Type.Null()]),
    program_id: Type.Union([Type.String(), Type.Null()]),
    reservation_id: Type.Union([Id('txn'), Type.Null()]),
    reason: Type.String(),
    subject: Type.Union([Subject, Type.Null()]),
    caused_by: Type.String(),
    sources: Type.Array(Type.Object({ source: Type.Union([Type.Literal('own'), Type.Literal('sponsored')]), program_id: Type.Union([Type.String(), Type.Null()]), credits: Credits })),
    created_at: Timestamp,
    resolved_at: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'LedgerEntry' },
);

export function creditRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps;
  return [
    route({
      method: 'get',
      path: '/v1/orgs/{org_id}/credits',
      operation_id: 'getOrganizationCredits',
      summary: "An organization's available and reserved credits, in total and per source",
      tag: 'credits',
      auth: 'user',
      scope: 'read',
      role: 'member',
      responses: { 200: { description: 'the balances', schema: CreditsOut } },
      handler: async (ctx, input) => {
        const org_id = input.params.org_id;
        await authorizeOrg(deps, ctx, org_id);
        ctx.body = await balances(db, org_id);
      },
    }),
    route({
      method: 'get',
      path: '/v1/orgs/{org_id}/ledger',
      operation_id: 'listOrganizationLedger',
      summary: "An organization's ledger entries, newest first",
      tag: 'credits',
      auth: 'user',
      scope: 'read',
      role: 'member',
      query: { ...PageQuery },
      responses: { 200: { description: 'ledger entries', schema: Page(LedgerEntryOut) } },
      handler: async (ctx, input) => {
        const org_id = input.params.org_id;
        const { offset, limit } = input.query;
        await authorizeOrg(deps, ctx, org_id);
        ctx.body = page(await listLedger(db, org_id, offset, limit), offset, limit);
      },
    }),
  ];
}
