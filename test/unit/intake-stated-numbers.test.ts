// A drafted claim or statement keeps a number only when a quote it cites states it: exact, a rounding of the quote's
// figure, a fraction said in words, or a scale word; never added precision, another quantity or an invented figure.
import { describe, expect, it } from 'vitest';
import type { Citation, IntakeSpec } from '../../domain/contracts/intakeSpec.ts';
import { draftIntakeOffline } from '../../domain/intake/offlineDraft.ts';
import { keepStatedNumbers, unstatedNumbers } from '../../domain/intake/statedNumbers.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';

const cite = (quote: string): Citation[] => [{ source_id: 'src_a', line_start: 1, line_end: 1, quote }];

describe('a number its quote states', () => {
  it('keeps the same number, as digits or a word, and a rounding of the quote’s figure', () => {
    expect(unstatedNumbers('Readmissions fall by 20%', cite('readmissions fell by 20% in the pilot'))).toEqual([]);
    expect(unstatedNumbers('3 clinicians staff the line', cite('Three clinicians staff the line'))).toEqual([]);
    expect(unstatedNumbers('About 33% are readmitted', cite('33.3% of patients are readmitted'))).toEqual([]);
    expect(unstatedNumbers('1,200 calls a week', cite('we take 1200 calls a week'))).toEqual([]);
  });

  it('reads a fraction said in words as its percentage, and a scale word either way', () => {
    expect(unstatedNumbers('Half of referrals are inappropriate', cite('half of referrals are inappropriate'))).toEqual([]);
    expect(unstatedNumbers('50% of referrals are inappropriate', cite('half of referrals are inappropriate'))).toEqual([]);
    expect(unstatedNumbers('33% miss their appointment', cite('a third miss their appointment'))).toEqual([]);
    expect(unstatedNumbers('20% do not attend', cite('one in five patients do not attend'))).toEqual([]);
    expect(unstatedNumbers('The service costs £1.2 million a year', cite('an annual cost of £1,200,000'))).toEqual([]);
  });

  it('flags invented precision, another quantity, a unit change it cannot check, and a figure the quote lacks', () => {
    expect(unstatedNumbers('Readmissions fall by 42.7%', cite('readmissions fell by about 40%'))).toEqual(['42.7']);
    expect(unstatedNumbers('33.3% miss their appointment', cite('about 33% miss their appointment'))).toEqual(['33.3']);
    expect(unstatedNumbers('Cuts waits by 40%', cite('cuts waits by a third'))).toEqual(['40']);
    expect(unstatedNumbers('Reviews take 48 hours', cite('reviews take two days'))).toEqual(['48']);
    expect(unstatedNumbers('Saves £300,000 a year', cite('it would save money every year'))).toEqual(['300,000']);
  });
});

describe('a drafted intake', () => {
  const spec = (claims: Array<[string, string]>, problem?: [string, string]): IntakeSpec => ({
    ...emptyIntakeSpec(),
    problem: problem ? { text: problem[0], provenance: 'user_declared', citations: cite(problem[1]) } : null,
    claims: claims.map(([text, quote]) => ({ text, topic: 'operational' as const, provenance: 'user_declared' as const, citations: cite(quote) })),
  });

  it('loses a claim whose number its quote does not state, saying which number and why', () => {
    const result = keepStatedNumbers(
      spec([
        ['Cuts waits by 40%', 'cuts waits by a third'],
        ['Cuts waits by a third', 'cuts waits by a third'],
      ]),
    );
    expect(result.spec.claims.map((claim) => claim.text)).toEqual(['Cuts waits by a third']);
    expect(result.claims_removed).toEqual([
      { path: '/claims/0', numbers: ['40'], message: expect.stringMatching(/says “40”, but the text it quotes does not state that number/) },
    ]);
  });

  it('turns a problem whose number is not stated into an unknown with a question', () => {
    const result = keepStatedNumbers(spec([], ['Patients wait 14 weeks', 'patients wait too long for a review']));
    expect(result.spec.problem).toBeNull();
    expect(result.spec.unknowns).toEqual([{ field: 'problem', question: expect.stringMatching(/“14”, which your material does not state/) }]);
    expect(result.statements_unknown).toHaveLength(1);
  });

  it('keeps every claim the offline drafter writes: it quotes the sentences that state its numbers', () => {
    const lines = [
      'Our telephone triage service receives 96 referrals a day.',
      'Each call takes 12 minutes on average and 30% of callers are sent to A&E.',
      'Three clinicians staff the line from 8am to 8pm.',
    ];
    const drafted = draftIntakeOffline([{ id: 'src_t', name: 'triage.txt', status: 'processed', lines }]);
    expect(drafted.claims.length).toBeGreaterThan(0);
    expect(keepStatedNumbers(drafted).claims_removed).toEqual([]);
  });
});
