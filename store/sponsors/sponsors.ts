// Sponsor institutions, administrators, programs, redemption codes and enrollments (spec: Sponsor institution and
// program). Codes are stored only as a SHA-256 digest of their normalized form; nothing here ever sees a code's text
// except codeDigest. Other rooms (billing) rely on findProgram and isSponsorAdmin keeping their names and shapes.
import { invariant } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { normalizeCode, type EnrollmentStatus, type ProgramStatus } from '../../domain/sponsors/rules.ts';
import { iso, isoRequired } from '../../domain/time.ts';
import type { Tx } from '../db.ts';
import { sha256 } from '../secrets.ts';

export type InstitutionView = { id: string; name: string; verified_at: string | null; created_at: string };

export type ProgramRow = {
  id: string;
  institution_id: string;
  name: string;
  status: ProgramStatus;
  starts_at: string;
  ends_at: string;
  per_recipient_cap: number;
  max_recipients: number;
  eligible_email_domains: string[];
  requires_approval: boolean;
  report_min_cohort: number;
  created_by: string;
  created_at: string;
  updated_at: string;
  activated_at: string | null;
  closed_at: string | null;
};

export type EnrollmentRow = {
  id: string;
  program_id: string;
  org_id: string;
  redeemed_by: string;
  code_id: string;
  status: EnrollmentStatus;
  decided_by: string | null;
  decision_note: string | null;
  decided_at: string | null;
  created_at: string;
  updated_at: string;
};

export type CodeRow = { id: string; program_id: string; expires_at: string; max_uses: number; uses: number; revoked_at: string | null; created_at: string };

const int = (value: unknown) => {
  const n = Number(value);
  invariant(Number.isSafeInteger(n), `a stored count is a safe integer (got ${String(value)})`);
  return n;
};

function institution(row: Record<string, unknown>): InstitutionView {
  return { id: row.id as string, name: row.name as string, verified_at: iso(row.verified_at), created_at: isoRequired(row.created_at) };
}

function domains(value: unknown): string[] {
  if (Array.isArray(value)) return value as string[];
  // pg may hand a text[] as its literal form {a,b}
  const text = String(value ?? '{}').replace(/^\{|\}$/g, '');
  return text === '' ? [] : text.split(',').map((part) => part.replace(/^"|"$/g, ''));
}

function program(row: Record<string, unknown>): ProgramRow {
  return {
    id: row.id as string,
    institution_id: row.institution_id as string,
    name: row.name as string,
    status: row.status as ProgramStatus,
    starts_at: isoRequired(row.starts_at),
    ends_at: isoRequired(row.ends_at),
    per_recipient_cap: int(row.per_recipient_cap),
    max_recipients: int(row.max_recipients),
    eligible_email_domains: domains(row.eligible_email_domains),
    requires_approval: row.requires_approval === true,
    report_min_cohort: int(row.report_min_cohort),
    created_by: row.created_by as string,
    created_at: isoRequired(row.created_at),
    updated_at: isoRequired(row.updated_at),
    activated_at: iso(row.activated_at),
    closed_at: iso(row.closed_at),
  };
}

function enrollment(row: Record<string, unknown>): EnrollmentRow {
  return {
    id: row.id as string,
    program_id: row.program_id as string,
    org_id: row.org_id as string,
    redeemed_by: row.redeemed_by as string,
    code_id: row.code_id as string,
    status: row.status as EnrollmentStatus,
    decided_by: (row.decided_by as string | null) ?? null,
    decision_note: (row.decision_note as string | null) ?? null,
    decided_at: iso(row.decided_at),
    created_at: isoRequired(row.created_at),
    updated_at: isoRequired(row.updated_at),
  };
}

function code(row: Record<string, unknown>): CodeRow {
  return {
    id: row.id as string,
    program_id: row.program_id as string,
    expires_at: isoRequired(row.expires_at),
    max_uses: int(row.max_uses),
    uses: int(row.uses),
    revoked_at: iso(row.revoked_at),
    created_at: isoRequired(row.created_at),
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Institutions and administrators (operator provisioning only)

export async function createInstitution(tx: Tx, name: string): Promise<InstitutionView> {
  const [row] = await tx.query('insert into sponsor_institutions (id, name) values (?, ?) returning *', [newId('inst'), name]);
  return institution(row!);
}

export async function findInstitution(tx: Tx, id: string): Promise<InstitutionView | undefined> {
  const row = await tx.one('select * from sponsor_institutions where id = ?', [id]);
  return row && institution(row);
}

/** Records the institution's verification (the operator's check of the sponsor), dated `verified_at`. */
export async function verifyInstitution(tx: Tx, id: string, verified_at: string): Promise<InstitutionView | undefined> {
  const row = await tx.one('update sponsor_institutions set verified_at = ? where id = ? returning *', [verified_at, id]);
  return row && institution(row);
}

export async function assignSponsorAdmin(tx: Tx, institution_id: string, user_id: string): Promise<void> {
  await tx.query('insert into sponsor_admins (institution_id, user_id) values (?, ?) on conflict do nothing', [institution_id, user_id]);
}

export async function unassignSponsorAdmin(tx: Tx, institution_id: string, user_id: string): Promise<boolean> {
  const rows = await tx.query('delete from sponsor_admins where institution_id = ? and user_id = ? returning user_id', [institution_id, user_id]);
  return rows.length > 0;
}

/** Whether the user is an assigned administrator of the institution. */
export async function isSponsorAdmin(tx: Tx, institution_id: string, user_id: string): Promise<boolean> {
  return (await tx.one('select 1 from sponsor_admins where institution_id = ? and user_id = ?', [institution_id, user_id])) !== undefined;
}

/** The institutions a user administers, by name; at most `limit`. */
export async function listAdminInstitutions(tx: Tx, user_id: string, limit: number): Promise<InstitutionView[]> {
  const rows = await tx.query(
    `select i.* from sponsor_institutions i join sponsor_admins a on a.institution_id = i.id where a.user_id = ? order by i.name, i.id limit ?`,
    [user_id, limit],
  );
  return rows.map(institution);
}

// ---------------------------------------------------------------------------------------------------------------------
// Programs

export async function findProgram(tx: Tx, program_id: string): Promise<ProgramRow | undefined> {
  const row = await tx.one('select * from sponsor_programs where id = ?', [program_id]);
  return row && program(row);
}

/** Locks the program row: redemptions, decisions, allocations and status changes of one program serialize on it. */
export async function lockProgram(tx: Tx, program_id: string): Promise<ProgramRow | undefined> {
  const row = await tx.one('select * from sponsor_programs where id = ? for update', [program_id]);
  return row && program(row);
}

export async function createProgram(
  tx: Tx,
  input: Omit<ProgramRow, 'id' | 'status' | 'created_at' | 'updated_at' | 'activated_at' | 'closed_at'>,
): Promise<ProgramRow> {
  const [row] = await tx.query(
    `insert into sponsor_programs (id, institution_id, name, status, starts_at, ends_at, per_recipient_cap, max_recipients, eligible_email_domains,
       requires_approval, report_min_cohort, created_by)
     values (?, ?, ?, 'draft', ?, ?, ?, ?, ?::text[], ?, ?, ?) returning *`,
    [
      newId('prog'),
      input.institution_id,
      input.name,
      input.starts_at,
      input.ends_at,
      input.per_recipient_cap,
      input.max_recipients,
      `{${input.eligible_email_domains.map((d) => `"${d}"`).join(',')}}`,
      input.requires_approval,
      input.report_min_cohort,
      input.created_by,
    ],
  );
  return program(row!);
}

/** Programs of the institutions a user administers, newest first; fetches limit+1 rows for `page()`. */
export async function listAdminPrograms(tx: Tx, user_id: string, offset: number, limit: number): Promise<ProgramRow[]> {
  const rows = await tx.query(
    `select p.* from sponsor_programs p join sponsor_admins a on a.institution_id = p.institution_id
     where a.user_id = ? order by p.created_at desc, p.id desc offset ? limit ?`,
    [user_id, offset, limit + 1],
  );
  return rows.map(program);
}

export async function setProgramStatus(tx: Tx, program_id: string, status: ProgramStatus): Promise<ProgramRow> {
  const [row] = await tx.query(
    `update sponsor_programs set status = ?, updated_at = now(),
       activated_at = case when ? = 'active' and activated_at is null then now() else activated_at end,
       closed_at = case when ? = 'closed' and closed_at is null then now() else closed_at end
     where id = ? returning *`,
    [status, status, status, program_id],
  );
  invariant(row, `program ${program_id} exists when its status is set`);
  return program(row);
}

// ---------------------------------------------------------------------------------------------------------------------
// Codes: stored as digests only

/** The stored form of a code: SHA-256 of its normalized text. Codes carry 125 random bits, so no salt is needed. */
export function codeDigest(raw: string): string {
  return sha256(`sponsor-code:${normalizeCode(raw)}`);
}

export async function insertCode(tx: Tx, input: { program_id: string; digest: string; expires_at: string; max_uses: number }): Promise<CodeRow> {
  const [row] = await tx.query('insert into sponsor_codes (id, program_id, digest, expires_at, max_uses) values (?, ?, ?, ?, ?) returning *', [
    newId('code'),
    input.program_id,
    input.digest,
    input.expires_at,
    input.max_uses,
  ]);
  return code(row!);
}

export async function revokeCode(tx: Tx, code_id: string): Promise<CodeRow | undefined> {
  const row = await tx.one('update sponsor_codes set revoked_at = coalesce(revoked_at, now()) where id = ? returning *', [code_id]);
  return row && code(row);
}

export async function findCodeByDigest(tx: Tx, digest: string): Promise<CodeRow | undefined> {
  const row = await tx.one('select * from sponsor_codes where digest = ?', [digest]);
  return row && code(row);
}

/** The code with this digest, locked (its use count changes in the same transaction). */
export async function lockCodeByDigest(tx: Tx, digest: string): Promise<CodeRow | undefined> {
  const row = await tx.one('select * from sponsor_codes where digest = ? for update', [digest]);
  return row && code(row);
}

export async function countCodeUse(tx: Tx, code_id: string): Promise<void> {
  await tx.query('update sponsor_codes set uses = uses + 1 where id = ?', [code_id]);
}

// ---------------------------------------------------------------------------------------------------------------------
// Enrollments

export async function findEnrollment(tx: Tx, program_id: string, org_id: string): Promise<EnrollmentRow | undefined> {
  const row = await tx.one('select * from sponsor_enrollments where program_id = ? and org_id = ?', [program_id, org_id]);
  return row && enrollment(row);
}

/** Whether this person or this organization already redeemed a code of the program (spec: Limits — Redemption). */
export async function hasRedeemed(tx: Tx, program_id: string, org_id: string, user_id: string): Promise<boolean> {
  return (
    (await tx.one('select 1 from sponsor_enrollments where program_id = ? and (org_id = ? or redeemed_by = ?)', [program_id, org_id, user_id])) !== undefined
  );
}

/** Pending and active enrollments: the places max_recipients counts. */
export async function countRecipients(tx: Tx, program_id: string, statuses: EnrollmentStatus[] = ['pending', 'active']): Promise<number> {
  const row = await tx.one<{ n: unknown }>(
    `select count(*) as n from sponsor_enrollments where program_id = ? and status in (${statuses.map(() => '?').join(', ')})`,
    [program_id, ...statuses],
  );
  return int(row?.n ?? 0);
}

export async function createEnrollment(
  tx: Tx,
  input: { program_id: string; org_id: string; redeemed_by: string; code_id: string; status: 'pending' | 'active' },
): Promise<EnrollmentRow> {
  const [row] = await tx.query('insert into sponsor_enrollments (id, program_id, org_id, redeemed_by, code_id, status) values (?, ?, ?, ?, ?, ?) returning *', [
    newId('enr'),
    input.program_id,
    input.org_id,
    input.redeemed_by,
    input.code_id,
    input.status,
  ]);
  return enrollment(row!);
}

export async function decideEnrollment(
  tx: Tx,
  input: { enrollment_id: string; status: 'active' | 'declined'; decided_by: string; note: string | null },
): Promise<EnrollmentRow> {
  const [row] = await tx.query(
    `update sponsor_enrollments set status = ?, decided_by = ?, decision_note = ?, decided_at = now(), updated_at = now()
     where id = ? and status = 'pending' returning *`,
    [input.status, input.decided_by, input.note, input.enrollment_id],
  );
  invariant(row, `enrollment ${input.enrollment_id} is pending when it is decided`);
  return enrollment(row);
}

/** Credits allocated so far from a program to one organization (the per-recipient cap counts these). */
export async function allocatedToRecipient(tx: Tx, program_id: string, org_id: string): Promise<number> {
  const row = await tx.one<{ n: unknown }>(
    `select coalesce(sum(amount), 0) as n from credit_transfers where kind = 'allocation' and program_id = ? and org_id = ?`,
    [program_id, org_id],
  );
  return int(row?.n ?? 0);
}

/** What the program's pool can still allocate (posted in, less posted and held out). */
export async function poolBalance(tx: Tx, program_id: string): Promise<number> {
  const row = await tx.one<{ n: unknown }>(
    `select credits_posted - debits_posted - debits_pending as n from credit_accounts where kind = 'program_pool' and program_id = ?`,
    [program_id],
  );
  return row ? int(row.n) : 0;
}

/** Whether any program is active inside its dates now: a sponsor code could be redeemed (the "add credits" advice). */
export async function anyProgramOpen(tx: Tx, now: string = new Date().toISOString()): Promise<boolean> {
  const row = await tx.one<{ open: boolean }>(
    `select exists (select 1 from sponsor_programs where status = 'active' and starts_at <= ? and ends_at > ?) as open`,
    [now, now],
  );
  return row?.open === true;
}
