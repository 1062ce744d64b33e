// Sponsor programs (spec: Sponsor API; Sponsor institution and program; States and transitions; Authentication —
// sponsor rows). Every route declares feature 'sponsor': while SERVICE_SPONSOR_API_ENABLED is off the router answers
// 503 SPONSOR_NOT_CONFIGURED before the credential. Institution endpoints take a user session of an assigned sponsor
// administrator (an API token is 403 by the router; a missing assignment or another institution's program is 404).
import { Type } from 'typebox';
import { trimmedName } from '../../domain/accounts/rules.ts';
import { ServiceError } from '../../domain/errors.ts';
import {
  checkAllocation,
  CODE_LENGTH_MAX,
  DECISION_NOTE_LENGTH_MAX,
  decisionOutcome,
  ELIGIBLE_EMAIL_DOMAINS_MAX,
  INSTITUTIONS_LIST_MAX,
  MAX_RECIPIENTS_MAX,
  nextStatus,
  normalizeDomains,
  programReport,
  programWindow,
  redemptionOutcome,
  REPORT_MIN_COHORT_MIN,
  reportMinCohort,
} from '../../domain/sponsors/rules.ts';
import { findUser } from '../../store/accounts/accounts.ts';
import { allocateCredits, ensureProgramPool, sponsoredUsage } from '../../store/credits/ledger.ts';
import { isUniqueViolation } from '../../store/db.ts';
import {
  allocatedToRecipient,
  codeDigest,
  countCodeUse,
  countRecipients,
  createEnrollment,
  createProgram,
  decideEnrollment,
  findEnrollment,
  findInstitution,
  findCodeByDigest,
  findProgram,
  hasRedeemed,
  isSponsorAdmin,
  listAdminInstitutions,
  listAdminPrograms,
  lockCodeByDigest,
  lockProgram,
  poolBalance,
  type ProgramRow,
  setProgramStatus,
} from '../../store/sponsors/sponsors.ts';
import { authorizeOrg } from '../auth.ts';
import type { AppDeps } from '../context.ts';
import { page } from '../http.ts';
import { idempotent, respond } from '../idempotency.ts';
import { route, type RouteDef } from '../registry.ts';
import { CREDITS_MAX, Id, Page, PageQuery, Timestamp } from '../schemas.ts';

export const PROGRAM_NAME_LENGTH_MAX = 200;
const SPONSOR_ADMIN = 'assigned sponsor administrator of the institution (user session only)';

const InstitutionOut = Type.Object({ id: Id('inst'), name: Type.String(), verified_at: Type.Union([Timestamp, Type.Null()]) });
const ProgramOut = Type.Object({
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
const CreateProgram = Type.Object(
  {
    sponsor_id: Type.String({ minLength: 1, maxLength: 64 }),
    name: Type.String({ maxLength: 1000 }),
    starts_at: Type.Optional(Timestamp),
    ends_at: Timestamp,
    per_recipient_cap: Type.Integer({ minimum: 1, maximum: CREDITS_MAX }),
    max_recipients: Type.Integer({ minimum: 1, maximum: MAX_RECIPIENTS_MAX }),
    eligible_email_domains: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: ELIGIBLE_EMAIL_DOMAINS_MAX })),
    requires_approval: Type.Optional(Type.Boolean({ description: 'default true: redemptions wait for a decision' })),
    report_min_cohort: Type.Optional(Type.Integer({ minimum: REPORT_MIN_COHORT_MIN, maximum: MAX_RECIPIENTS_MAX, description: 'default 10' })),
  },
  { additionalProperties: false },
);
const SetStatus = Type.Object({ status: Type.Union([Type.Literal('active'), Type.Literal('closed')]) }, { additionalProperties: false });
const Decide = Type.Object(
  {
    org_id: Type.String({ minLength: 1, maxLength: 64 }),
    approve: Type.Boolean(),
    note: Type.Optional(Type.Union([Type.String({ maxLength: DECISION_NOTE_LENGTH_MAX }), Type.Null()])),
  },
  { additionalProperties: false },
);
const EnrollmentOut = Type.Object({
  program_id: Id('prog'),
  org_id: Id('org'),
  status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('declined')]),
  note: Type.Union([Type.String(), Type.Null()]),
  decided_at: Type.Union([Timestamp, Type.Null()]),
});
const Allocate = Type.Object(
  { org_id: Type.String({ minLength: 1, maxLength: 64 }), credits: Type.Integer({ minimum: 1, maximum: CREDITS_MAX }) },
  { additionalProperties: false },
);
const AllocationOut = Type.Object({
  transaction_id: Id('txn'),
  program_id: Id('prog'),
  org_id: Id('org'),
  credits: Type.Integer(),
  credits_allocated_to_recipient: Type.Integer(),
});
const ReportOut = Type.Object({
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
const Redeem = Type.Object(
  { org_id: Type.String({ minLength: 1, maxLength: 64 }), code: Type.String({ minLength: 1, maxLength: CODE_LENGTH_MAX }) },
  { additionalProperties: false },
);
const RedemptionOut = Type.Object({
  enrollment_id: Id('enr'),
  program_id: Id('prog'),
  program_name: Type.String(),
  org_id: Id('org'),
  status: Type.Union([Type.Literal('pending'), Type.Literal('active')]),
  created_at: Timestamp,
});

function programOut(row: ProgramRow) {
  return {
    id: row.id,
    sponsor_id: row.institution_id,
    name: row.name,
    status: row.status,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    per_recipient_cap: row.per_recipient_cap,
    max_recipients: row.max_recipients,
    eligible_email_domains: row.eligible_email_domains,
    requires_approval: row.requires_approval,
    report_min_cohort: row.report_min_cohort,
    created_at: row.created_at,
    updated_at: row.updated_at,
    activated_at: row.activated_at,
    closed_at: row.closed_at,
  };
}

const programNotFound = (program_id: string) => new ServiceError('NOT_FOUND', `Program ${program_id} was not found.`);

/** spec: Authentication — a program of an institution the caller does not administer is a plain 404. */
async function loadProgram(deps: AppDeps, user_id: string, program_id: string): Promise<ProgramRow> {
  const program = await findProgram(deps.db, program_id);
  if (!program || !(await isSponsorAdmin(deps.db, program.institution_id, user_id))) throw programNotFound(program_id);
  return program;
}

/** Re-reads the program under its lock inside the transaction (the assignment was checked before). */
async function lockedProgram(tx: Parameters<typeof lockProgram>[0], program_id: string): Promise<ProgramRow> {
  const program = await lockProgram(tx, program_id);
  if (!program) throw programNotFound(program_id);
  return program;
}

export function sponsorRoutes(deps: AppDeps): RouteDef[] {
  const { db } = deps;
  const common = { feature: 'sponsor' as const, tag: 'sponsors' };
  const institutionPost = { ...common, auth: 'session' as const, scope: 'write' as const, audience: SPONSOR_ADMIN, idempotency: 'required' as const, idempotency_namespace: 'sponsor_institution' as const };
  return [
    route({
      ...common,
      method: 'get',
      path: '/v1/sponsors/institutions',
      operation_id: 'listSponsorInstitutions',
      summary: 'The institutions the signed-in user administers, with verification dates (at most 200)',
      auth: 'session',
      scope: 'read',
      audience: SPONSOR_ADMIN,
      responses: { 200: { description: 'institutions', schema: Type.Object({ data: Type.Array(InstitutionOut) }) } },
      handler: async (ctx, { auth }) => {
        const rows = await listAdminInstitutions(db, auth.user_id, INSTITUTIONS_LIST_MAX);
        ctx.body = { data: rows.map((row) => ({ id: row.id, name: row.name, verified_at: row.verified_at })) };
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/sponsors/programs',
      operation_id: 'listSponsorPrograms',
      summary: "Programs of the institutions the signed-in user administers, newest first",
      auth: 'session',
      scope: 'read',
      audience: SPONSOR_ADMIN,
      query: PageQuery,
      responses: { 200: { description: 'programs', schema: Page(ProgramOut) } },
      handler: async (ctx, { query, auth }) => {
        const rows = await listAdminPrograms(db, auth.user_id, query.offset, query.limit);
        const out = page(rows, query.offset, query.limit);
        ctx.body = { data: out.data.map(programOut), next_offset: out.next_offset };
      },
    }),
    route({
      ...institutionPost,
      method: 'post',
      path: '/v1/sponsors/programs',
      operation_id: 'createSponsorProgram',
      summary: 'Create a draft program of an institution the caller administers (no credits issued, nothing charged)',
      body: CreateProgram,
      responses: { 201: { description: 'the draft program', schema: ProgramOut } },
      handler: async (ctx, { body, auth }) => {
        const institution = await findInstitution(db, body.sponsor_id);
        if (!institution || !(await isSponsorAdmin(db, institution.id, auth.user_id))) {
          throw new ServiceError('NOT_FOUND', `Institution ${body.sponsor_id} was not found among the institutions you administer.`);
        }
        const name = trimmedName(body.name, 'name', PROGRAM_NAME_LENGTH_MAX);
        const window = programWindow({ starts_at: body.starts_at, ends_at: body.ends_at }, Date.now());
        const eligible_email_domains = normalizeDomains(body.eligible_email_domains ?? []);
        const report_min_cohort = reportMinCohort(body.report_min_cohort);
        const outcome = await idempotent(db, ctx, { owner_id: institution.id, hashed_body: body }, async (tx) => {
          const created = await createProgram(tx, {
            institution_id: institution.id,
            name,
            ...window,
            per_recipient_cap: body.per_recipient_cap,
            max_recipients: body.max_recipients,
            eligible_email_domains,
            requires_approval: body.requires_approval ?? true,
            report_min_cohort,
            created_by: auth.user_id,
          });
          await ensureProgramPool(tx, { program_id: created.id, ends_at: created.ends_at });
          return { status: 201, body: programOut(created) };
        });
        respond(ctx, outcome);
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/sponsors/programs/{program_id}',
      operation_id: 'getSponsorProgram',
      summary: 'Program configuration and status',
      auth: 'session',
      scope: 'read',
      audience: SPONSOR_ADMIN,
      responses: { 200: { description: 'the program', schema: ProgramOut } },
      handler: async (ctx, { params, auth }) => {
        ctx.body = programOut(await loadProgram(deps, auth.user_id, params.program_id));
      },
    }),
    route({
      ...institutionPost,
      method: 'post',
      path: '/v1/sponsors/programs/{program_id}/status',
      operation_id: 'setSponsorProgramStatus',
      summary: 'Activate (needs the institution verified: 409 APPROVAL_REQUIRED) or close a program; closed never reopens (409)',
      body: SetStatus,
      responses: { 200: { description: 'the program', schema: ProgramOut } },
      handler: async (ctx, { body, params, auth }) => {
        const found = await loadProgram(deps, auth.user_id, params.program_id);
        const outcome = await idempotent(db, ctx, { owner_id: found.institution_id, hashed_body: { program_id: found.id, ...body } }, async (tx) => {
          const program = await lockedProgram(tx, found.id);
          const institution = await findInstitution(tx, program.institution_id);
          const next = nextStatus(program, body.status, institution?.verified_at != null, Date.now());
          const updated = next === program.status ? program : await setProgramStatus(tx, program.id, next);
          return { status: 200, body: programOut(updated) };
        });
        respond(ctx, outcome);
      },
    }),
    route({
      ...institutionPost,
      method: 'post',
      path: '/v1/sponsors/programs/{program_id}/members/decide',
      operation_id: 'decideSponsorMember',
      summary: 'Approve (active; no credits issued) or decline (declined, final) a pending enrollment',
      body: Decide,
      responses: { 200: { description: 'the decided enrollment', schema: EnrollmentOut } },
      handler: async (ctx, { body, params, auth }) => {
        const found = await loadProgram(deps, auth.user_id, params.program_id);
        const note = body.note?.trim() || null;
        const outcome = await idempotent(db, ctx, { owner_id: found.institution_id, hashed_body: { program_id: found.id, ...body } }, async (tx) => {
          const program = await lockedProgram(tx, found.id);
          const enrollment = await findEnrollment(tx, program.id, body.org_id);
          if (!enrollment) throw new ServiceError('NOT_FOUND', `Organization ${body.org_id} has no enrollment in program ${program.id}.`);
          const status = decisionOutcome(program, enrollment.status, body.approve, Date.now());
          const decided = await decideEnrollment(tx, { enrollment_id: enrollment.id, status, decided_by: auth.user_id, note });
          return { status: 200, body: { program_id: program.id, org_id: decided.org_id, status: decided.status, note: decided.decision_note, decided_at: decided.decided_at } };
        });
        respond(ctx, outcome);
      },
    }),
    route({
      ...institutionPost,
      method: 'post',
      path: '/v1/sponsors/programs/{program_id}/allocate',
      operation_id: 'allocateSponsorCredits',
      summary: "Move credits from the program's pool to an active member's sponsored balance; returns the ledger transaction id",
      body: Allocate,
      responses: { 201: { description: 'the allocation', schema: AllocationOut } },
      handler: async (ctx, { body, params, auth }) => {
        const found = await loadProgram(deps, auth.user_id, params.program_id);
        const outcome = await idempotent(db, ctx, { owner_id: found.institution_id, hashed_body: { program_id: found.id, ...body } }, async (tx) => {
          // The program lock serializes every allocation of the program: cap and pool are checked under it.
          const program = await lockedProgram(tx, found.id);
          const enrollment = await findEnrollment(tx, program.id, body.org_id);
          if (!enrollment) throw new ServiceError('NOT_FOUND', `Organization ${body.org_id} has no enrollment in program ${program.id}.`);
          const allocated = await allocatedToRecipient(tx, program.id, body.org_id);
          checkAllocation(
            program,
            { enrollment_status: enrollment.status, credits: body.credits, allocated_to_recipient: allocated, pool_balance: await poolBalance(tx, program.id) },
            Date.now(),
          );
          const transfer = await allocateCredits(tx, {
            program_id: program.id,
            org_id: body.org_id,
            credits: body.credits,
            reason: `allocation from sponsor program ${program.id}`,
            caused_by: auth.user_id,
          });
          return {
            status: 201,
            body: { transaction_id: transfer.id, program_id: program.id, org_id: body.org_id, credits: transfer.credits, credits_allocated_to_recipient: allocated + transfer.credits },
          };
        });
        respond(ctx, outcome);
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/v1/sponsors/programs/{program_id}/report',
      operation_id: 'getSponsorProgramReport',
      summary: 'The fixed whole-program report; suppressed below report_min_cohort active recipients; takes no parameters',
      auth: 'session',
      scope: 'read',
      audience: SPONSOR_ADMIN,
      query_closed: true,
      responses: { 200: { description: 'the report', schema: ReportOut } },
      handler: async (ctx, { params, auth }) => {
        const program = await loadProgram(deps, auth.user_id, params.program_id);
        ctx.body = await db.transaction(async (tx) => {
          const active = await countRecipients(tx, program.id, ['active']);
          return programReport(program.id, program.report_min_cohort, active, await sponsoredUsage(tx, program.id));
        }, { isolation: 'repeatable read' });
      },
    }),
    route({
      ...common,
      method: 'post',
      path: '/v1/sponsors/redeem',
      operation_id: 'redeemSponsorCode',
      summary: 'Redeem an operator-issued code for an organization; returns a pending or active enrollment (the code is never echoed)',
      auth: 'user',
      scope: 'write',
      role: 'admin',
      idempotency: 'required',
      idempotency_namespace: 'organization',
      body: Redeem,
      responses: { 201: { description: 'the enrollment', schema: RedemptionOut } },
      handler: async (ctx, { body, auth }) => {
        await authorizeOrg(deps, ctx, body.org_id);
        // spec: Sponsor API, rule 5 — the replay hash sees a digest of the code, never the code.
        const digest = codeDigest(body.code);
        const user = await findUser(db, auth.user_id);
        if (!user) throw new ServiceError('NOT_FOUND', 'The signed-in user was not found.');
        const outcome = await idempotent(db, ctx, { owner_id: body.org_id, hashed_body: { org_id: body.org_id, code_digest: digest } }, async (tx) => {
          const invalid = () => new ServiceError('NOT_FOUND', 'The redemption code is not valid: it is wrong, expired, revoked or used up.');
          const seen = await findCodeByDigest(tx, digest);
          if (!seen) throw invalid();
          // Program first, then the code: the lock order every sponsor write uses.
          const program = await lockedProgram(tx, seen.program_id);
          const code = (await lockCodeByDigest(tx, digest))!;
          if (code.revoked_at || Date.parse(code.expires_at) <= Date.now() || code.uses >= code.max_uses) throw invalid();
          if (await hasRedeemed(tx, program.id, body.org_id, auth.user_id)) {
            throw new ServiceError('CONFLICT', 'This organization or this person already redeemed a code of this program; one redemption each per program.');
          }
          const status = redemptionOutcome(program, { redeemer_email: user.email, recipients: await countRecipients(tx, program.id) }, Date.now());
          await countCodeUse(tx, code.id);
          const enrollment = await createEnrollment(tx, { program_id: program.id, org_id: body.org_id, redeemed_by: auth.user_id, code_id: code.id, status }).catch(
            (error) => {
              if (isUniqueViolation(error)) throw new ServiceError('CONFLICT', 'This organization or this person already redeemed a code of this program.');
              throw error;
            },
          );
          return {
            status: 201,
            body: { enrollment_id: enrollment.id, program_id: program.id, program_name: program.name, org_id: enrollment.org_id, status, created_at: enrollment.created_at },
          };
        });
        respond(ctx, outcome);
      },
    }),
  ];
}
