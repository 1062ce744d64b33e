// Sponsor program rules (domain/sponsors/rules.ts): domains, window, state transitions, redemption, allocation, report.
import { describe, expect, it } from 'vitest';
import {
  checkAllocation,
  decisionOutcome,
  emailEligible,
  generateCode,
  nextStatus,
  normalizeCode,
  normalizeDomains,
  programReport,
  programWindow,
  type ProgramRules,
  redemptionOutcome,
  reportMinCohort,
} from '../../domain/sponsors/rules.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const DAY = 86_400_000;
const at = (days: number) => new Date(NOW + days * DAY).toISOString();
const program = (over: Partial<ProgramRules> = {}): ProgramRules => ({
  status: 'active',
  starts_at: at(-1),
  ends_at: at(30),
  per_recipient_cap: 100,
  max_recipients: 3,
  eligible_email_domains: [],
  requires_approval: false,
  ...over,
});
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'none';
};

describe('program fields', () => {
  it('normalizes eligible domains and refuses anything that is not a full domain', () => {
    expect(normalizeDomains([' Uni.EDU. ', 'uni.edu', 'med.uni.edu'])).toEqual(['uni.edu', 'med.uni.edu']);
    for (const bad of ['@uni.edu', 'person@uni.edu', 'localhost', 'uni..edu', '-uni.edu', 'uni.123', ''])
      expect(
        codeOf(() => normalizeDomains([bad])),
        bad,
      ).toBe('VALIDATION_FAILED');
  });

  it('defaults starts_at to now and needs ends_at after the start and in the future', () => {
    expect(programWindow({ ends_at: at(1) }, NOW).starts_at).toBe(new Date(NOW).toISOString());
    expect(codeOf(() => programWindow({ starts_at: at(2), ends_at: at(1) }, NOW))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => programWindow({ starts_at: at(-3), ends_at: at(-1) }, NOW))).toBe('VALIDATION_FAILED');
  });

  it('defaults the report cohort to 10 and refuses one below 5', () => {
    expect(reportMinCohort(undefined)).toBe(10);
    expect(reportMinCohort(5)).toBe(5);
    expect(codeOf(() => reportMinCohort(4))).toBe('VALIDATION_FAILED');
  });
});

describe('program status', () => {
  it('activates a draft only with a verification record', () => {
    expect(nextStatus(program({ status: 'draft' }), 'active', true, NOW)).toBe('active');
    expect(codeOf(() => nextStatus(program({ status: 'draft' }), 'active', false, NOW))).toBe('APPROVAL_REQUIRED');
  });
  it('closes from any state but closed, and never reopens', () => {
    expect(nextStatus(program({ status: 'draft' }), 'closed', false, NOW)).toBe('closed');
    expect(nextStatus(program({ status: 'active' }), 'closed', true, NOW)).toBe('closed');
    expect(codeOf(() => nextStatus(program({ status: 'closed' }), 'active', true, NOW))).toBe('CONFLICT');
    expect(codeOf(() => nextStatus(program({ status: 'closed' }), 'closed', true, NOW))).toBe('CONFLICT');
  });
});

describe('redemption', () => {
  it('is pending when the program requires approval, else active', () => {
    expect(redemptionOutcome(program({ requires_approval: true }), { redeemer_email: 'a@x.org', recipients: 0 }, NOW)).toBe('pending');
    expect(redemptionOutcome(program(), { redeemer_email: 'a@x.org', recipients: 0 }, NOW)).toBe('active');
  });
  it('refuses with the documented codes', () => {
    const ok = { redeemer_email: 'a@uni.edu', recipients: 0 };
    expect(codeOf(() => redemptionOutcome(program({ status: 'draft' }), ok, NOW))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => redemptionOutcome(program({ starts_at: at(1) }), ok, NOW))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => redemptionOutcome(program({ status: 'closed' }), ok, NOW))).toBe('CONFLICT');
    expect(codeOf(() => redemptionOutcome(program({ starts_at: at(-10), ends_at: at(-1) }), ok, NOW))).toBe('CONFLICT');
    expect(codeOf(() => redemptionOutcome(program({ eligible_email_domains: ['other.edu'] }), ok, NOW))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => redemptionOutcome(program(), { ...ok, recipients: 3 }, NOW))).toBe('VALIDATION_FAILED');
  });
  it('matches an eligible domain or a subdomain of it, never a look-alike', () => {
    expect(emailEligible('a@uni.edu', ['uni.edu'])).toBe(true);
    expect(emailEligible('a@med.uni.edu', ['uni.edu'])).toBe(true);
    expect(emailEligible('a@evil-uni.edu', ['uni.edu'])).toBe(false);
    expect(emailEligible('a@uni.edu.evil.org', ['uni.edu'])).toBe(false);
  });
});

describe('decision and allocation', () => {
  it('declines without conditions and approves only while the program is active', () => {
    expect(decisionOutcome(program({ status: 'closed' }), 'pending', false, NOW)).toBe('declined');
    expect(decisionOutcome(program(), 'pending', true, NOW)).toBe('active');
    expect(codeOf(() => decisionOutcome(program({ status: 'closed' }), 'pending', true, NOW))).toBe('CONFLICT');
    expect(codeOf(() => decisionOutcome(program(), 'active', true, NOW))).toBe('CONFLICT');
  });
  it('allocates within the cap and the pool only', () => {
    const ok = { enrollment_status: 'active' as const, credits: 50, allocated_to_recipient: 50, pool_balance: 1000 };
    expect(codeOf(() => checkAllocation(program(), ok, NOW))).toBe('none');
    expect(codeOf(() => checkAllocation(program(), { ...ok, credits: 51 }, NOW))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => checkAllocation(program(), { ...ok, pool_balance: 49 }, NOW))).toBe('QUOTA_EXCEEDED');
    expect(codeOf(() => checkAllocation(program(), { ...ok, enrollment_status: 'pending' }, NOW))).toBe('CONFLICT');
    expect(codeOf(() => checkAllocation(program({ starts_at: at(1) }), ok, NOW))).toBe('CONFLICT');
    expect(codeOf(() => checkAllocation(program({ starts_at: at(-10), ends_at: at(-1) }), ok, NOW))).toBe('CONFLICT');
  });
});

describe('report', () => {
  const usage = { pool_balance: 10, credits_allocated: 90, credits_used: 7, credits_reserved: 3, evaluations_funded: 2 };
  it('withholds usage and counts below the minimum cohort', () => {
    expect(programReport('prog_x', 5, 4, usage)).toEqual({
      program_id: 'prog_x',
      suppressed: true,
      reason: expect.any(String),
      report_min_cohort: 5,
      pool_balance: 10,
      credits_allocated: 90,
    });
  });
  it('is full at the minimum cohort', () => {
    expect(programReport('prog_x', 5, 5, usage)).toMatchObject({
      suppressed: false,
      active_recipients: 5,
      credits_used: 7,
      credits_reserved: 3,
      evaluations_funded: 2,
    });
  });
});

describe('codes', () => {
  it('are long random strings that normalize the way people type them', () => {
    const code = generateCode();
    expect(code).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
    expect(normalizeCode(` ${code.toLowerCase()} `)).toBe(code.replace(/-/g, ''));
    expect(generateCode()).not.toBe(code);
  });
});
