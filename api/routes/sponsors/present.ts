// Sponsor rows as the API shows them: a program names its institution `sponsor_id`.
import type { Static } from 'typebox';
import type { Program } from '../../../domain/contracts/sponsors.ts';
import type { ProgramRow } from '../../../store/sponsors/sponsors.ts';

export function presentProgram(row: ProgramRow): Static<typeof Program> {
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
