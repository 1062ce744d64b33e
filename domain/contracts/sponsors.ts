// Sponsor bodies (spec: Sponsor API; Sponsor institution and program; States and transitions).
import { Type } from 'typebox';
import { CODE_LENGTH_MAX, DECISION_NOTE_LENGTH_MAX, ELIGIBLE_EMAIL_DOMAINS_MAX, MAX_RECIPIENTS_MAX, REPORT_MIN_COHORT_MIN } from '../sponsors/rules.ts';
import { CREDITS_MAX, Id, Name, Timestamp } from './common.ts';
import { OrgIdInput } from './projects.ts';

/** A program's name, trimmed, has 1 to this many characters (the handler's check names it). */
export const PROGRAM_NAME_LENGTH_MAX = 200;
/** The name as sent, before trimming. */
export const PROGRAM_NAME_INPUT_LENGTH_MAX = 1000;
/** One eligible email domain as sent, before normalizing. */
export const EMAIL_DOMAIN_INPUT_LENGTH_MAX = 300;

export const Institution = Type.Object({ id: Id('inst'), name: Type.String(), verified_at: Type.Union([Timestamp, Type.Null()]) });
export const InstitutionList = Type.Object({ data: Type.Array(Institution) });

export const Program = Type.Object({
  id: Id('prog'),
  sponsor_id: Id('inst'),
  name: Type.String(),
  status: Type.Union([Type.Literal('draft'), Type.Literal('active'), Type.Literal('closed')]),
  starts_at: Timestamp,
  ends_at: Timestamp,
  per_recipient_cap: Type.Integer(),
  max_recipients: Type.Integer(),
  eligible_email_domains: Type.Array(Type.String()),
  requires_approval: Type.Boolean(),
  report_min_cohort: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  activated_at: Type.Union([Timestamp, Type.Null()]),
  closed_at: Type.Union([Timestamp, Type.Null()]),
});

export const CreateProgramBody = Type.Object(
  {
    sponsor_id: OrgIdInput,
    name: Name({ maxLength: PROGRAM_NAME_INPUT_LENGTH_MAX }),
    starts_at: Type.Optional(Timestamp),
    ends_at: Timestamp,
    per_recipient_cap: Type.Integer({ minimum: 1, maximum: CREDITS_MAX }),
    max_recipients: Type.Integer({ minimum: 1, maximum: MAX_RECIPIENTS_MAX }),
    eligible_email_domains: Type.Optional(Type.Array(Type.String({ maxLength: EMAIL_DOMAIN_INPUT_LENGTH_MAX }), { maxItems: ELIGIBLE_EMAIL_DOMAINS_MAX })),
    requires_approval: Type.Optional(Type.Boolean({ description: 'default true: redemptions wait for a decision' })),
    report_min_cohort: Type.Optional(Type.Integer({ minimum: REPORT_MIN_COHORT_MIN, maximum: MAX_RECIPIENTS_MAX, description: 'default 10' })),
  },
  { additionalProperties: false },
);

export const SetProgramStatusBody = Type.Object({ status: Type.Union([Type.Literal('active'), Type.Literal('closed')]) }, { additionalProperties: false });

export const DecideMemberBody = Type.Object(
  {
    org_id: OrgIdInput,
    approve: Type.Boolean(),
    note: Type.Optional(Type.Union([Type.String({ maxLength: DECISION_NOTE_LENGTH_MAX }), Type.Null()])),
  },
  { additionalProperties: false },
);
export const EnrollmentDecision = Type.Object({
  program_id: Id('prog'),
  org_id: Id('org'),
  status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('declined')]),
  note: Type.Union([Type.String(), Type.Null()]),
  decided_at: Type.Union([Timestamp, Type.Null()]),
});

export const AllocateBody = Type.Object({ org_id: OrgIdInput, credits: Type.Integer({ minimum: 1, maximum: CREDITS_MAX }) }, { additionalProperties: false });
export const Allocation = Type.Object({
  transaction_id: Id('txn'),
  program_id: Id('prog'),
  org_id: Id('org'),
  credits: Type.Integer(),
  credits_allocated_to_recipient: Type.Integer(),
});

export const ProgramReport = Type.Object({
  program_id: Id('prog'),
  suppressed: Type.Boolean(),
  reason: Type.Optional(Type.String()),
  report_min_cohort: Type.Integer(),
  pool_balance: Type.Integer(),
  credits_allocated: Type.Integer(),
  active_recipients: Type.Optional(Type.Integer()),
  credits_used: Type.Optional(Type.Integer()),
  credits_reserved: Type.Optional(Type.Integer()),
  evaluations_funded: Type.Optional(Type.Integer()),
});

export const RedeemBody = Type.Object({ org_id: OrgIdInput, code: Type.String({ minLength: 1, maxLength: CODE_LENGTH_MAX }) }, { additionalProperties: false });
export const Redemption = Type.Object({
  enrollment_id: Id('enr'),
  program_id: Id('prog'),
  program_name: Type.String(),
  org_id: Id('org'),
  status: Type.Union([Type.Literal('pending'), Type.Literal('active')]),
  created_at: Timestamp,
});
