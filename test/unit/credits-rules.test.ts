// The ledger's pure rules: funding order, settlement order, limits (domain/credits/rules.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCredits, CREDITS_MAX, type FundingSource, planDraw, planSettlement, RESERVATION_SOURCES_MAX } from '../../domain/credits/rules.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const DAY = 86_400_000;
const own = (credits: number): FundingSource => ({ account_id: 'acct_own', kind: 'org_own', program_id: null, ends_at_ms: null, spendable_credits: credits });
const sponsored = (id: string, ends_in_days: number, credits: number): FundingSource => ({
  account_id: `acct_${id}`,
  kind: 'sponsored',
  program_id: `prog_${id}`,
  ends_at_ms: NOW + ends_in_days * DAY,
  spendable_credits: credits,
});

describe('funding order', () => {
  it('draws sponsored balances first, the program ending soonest first, then own credits', () => {
    const plan = planDraw([own(100), sponsored('late', 30, 10), sponsored('soon', 2, 5)], 20, NOW);
    expect(plan).toEqual({
      ok: true,
      draws: [
        { account_id: 'acct_soon', program_id: 'prog_soon', credits: 5 },
        { account_id: 'acct_late', program_id: 'prog_late', credits: 10 },
        { account_id: 'acct_own', program_id: null, credits: 5 },
      ],
    });
  });

  it('does not draw a sponsored balance whose program has ended', () => {
    const plan = planDraw([own(3), sponsored('ended', -1, 50)], 4, NOW);
    expect(plan).toEqual({ ok: false, available_credits: 3 });
  });

  it('reports the available total when the balances cannot cover the amount', () => {
    expect(planDraw([own(7), sponsored('a', 1, 2)], 10, NOW)).toEqual({ ok: false, available_credits: 9 });
  });

  it(`draws from at most ${RESERVATION_SOURCES_MAX} accounts`, () => {
    const many = Array.from({ length: 40 }, (_, i) => sponsored(`p${String(i).padStart(2, '0')}`, i + 1, 1));
    const plan = planDraw([own(100), ...many], 100, NOW);
    expect(plan.ok && plan.draws.length).toBe(RESERVATION_SOURCES_MAX);
  });

  it('always draws exactly the amount, from sources that had it, when the total covers it', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 8 }), fc.nat({ max: 3000 }), (amounts, wanted) => {
        const sources = amounts.map((credits, i) => (i === 0 ? own(credits) : sponsored(`s${i}`, i, credits)));
        const total = amounts.reduce((a, b) => a + b, 0);
        const plan = planDraw(sources, wanted, NOW);
        if (wanted > total) return !plan.ok && plan.available_credits === total;
        if (!plan.ok) return false;
        const drawn = plan.draws.reduce((sum, d) => sum + d.credits, 0);
        return drawn === wanted && plan.draws.every((d) => d.credits > 0 && d.credits <= sources.find((s) => s.account_id === d.account_id)!.spendable_credits);
      }),
    );
  });
});

describe('settlement', () => {
  it('consumes the legs in their order and voids the rest', () => {
    expect(
      planSettlement(
        [
          { leg_no: 1, credits: 5 },
          { leg_no: 2, credits: 10 },
        ],
        8,
      ),
    ).toEqual([
      { leg_no: 1, credits_posted: 5, credits_voided: 0 },
      { leg_no: 2, credits_posted: 3, credits_voided: 7 },
    ]);
  });

  it('refuses to post more than was reserved (an invariant, reported as INTERNAL)', () => {
    expect(() => planSettlement([{ leg_no: 1, credits: 5 }], 6)).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });
});

describe('credit amounts', () => {
  it(`accepts integers from 1 to ${CREDITS_MAX} and names the limit otherwise`, () => {
    expect(checkCredits(CREDITS_MAX, 'credits')).toBe(CREDITS_MAX);
    for (const bad of [0, -1, 1.5, CREDITS_MAX + 1, Number.NaN, '5']) {
      expect(() => checkCredits(bad, 'credits')).toThrow(String(CREDITS_MAX));
    }
  });
});
