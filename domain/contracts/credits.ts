// Credit bodies (spec: Credit ledger): an organization's balances per source and its ledger entries.
import { Type } from 'typebox';
import { ADD_CREDITS_WAYS } from '../credits/addCredits.ts';
import { SUBJECT_KINDS, TRANSFER_KINDS, TRANSFER_STATUSES } from '../credits/rules.ts';
import { Credits, CREDITS_MAX, Id, LiteralUnion, Timestamp } from './common.ts';

const SignedCredits = Type.Integer({ minimum: -CREDITS_MAX, maximum: CREDITS_MAX, description: 'signed change to the available credits' });
const CreditsNamed = (description: string) => Type.Integer({ minimum: 0, maximum: CREDITS_MAX, description });
const SourceKind = Type.Union([Type.Literal('own'), Type.Literal('sponsored')]);

export const CreditSource = Type.Object(
  {
    source: SourceKind,
    program_id: Type.Optional(Type.String({ description: 'the sponsor program (sponsored balances)' })),
    ends_at: Type.Optional(Timestamp),
    ended: Type.Optional(Type.Boolean({ description: 'the program has ended: its balance is no longer spendable' })),
    available_credits: Credits,
    reserved_credits: Credits,
  },
  { title: 'CreditSource' },
);

export const AddCreditsAdvice = Type.Object(
  {
    way: LiteralUnion(ADD_CREDITS_WAYS),
    sentence: Type.String({ description: 'what to do to get credits on this deployment, in words a person reads as is' }),
    command: Type.Union([Type.String(), Type.Null()], { description: 'the operator command, for the owner of a local service; null otherwise' }),
  },
  { title: 'AddCreditsAdvice', description: 'how this organization gets more credits on this deployment (docs/credits.md "Adding credits")' },
);

export const OrganizationCredits = Type.Object(
  {
    org_id: Id('org'),
    available_credits: CreditsNamed('spendable now: sponsored balances of running programs plus own credits'),
    reserved_credits: CreditsNamed('held by reservations of unfinished work'),
    sources: Type.Array(CreditSource, { description: 'in funding order: sponsored (program ending soonest first), then own' }),
    add_credits: AddCreditsAdvice,
  },
  { title: 'OrganizationCredits' },
);

export const LedgerSubject = Type.Object({ project_id: Type.String(), kind: LiteralUnion(SUBJECT_KINDS), id: Type.String() });

export const LedgerEntry = Type.Object(
  {
    id: Id('txn'),
    kind: LiteralUnion(TRANSFER_KINDS),
    status: LiteralUnion(TRANSFER_STATUSES),
    credits: Credits,
    available_change_credits: SignedCredits,
    org_id: Type.Union([Id('org'), Type.Null()]),
    program_id: Type.Union([Type.String(), Type.Null()]),
    reservation_id: Type.Union([Id('txn'), Type.Null()]),
    reason: Type.String(),
    subject: Type.Union([LedgerSubject, Type.Null()]),
    caused_by: Type.String(),
    sources: Type.Array(Type.Object({ source: SourceKind, program_id: Type.Union([Type.String(), Type.Null()]), credits: Credits })),
    created_at: Timestamp,
    resolved_at: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'LedgerEntry' },
);
