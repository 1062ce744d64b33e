// One intake: a field with a value is never also listed as not known yet.
import { describe, expect, it } from 'vitest';
import { filledUnknownErrors, unknownField, withoutFilledUnknowns } from '../../domain/intake/unknowns.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';

const typed = (text: string) => ({ text, provenance: 'user_declared' as const, citations: [] });

describe('unknowns of fields that have a value', () => {
  it('reads "/business/buyer", "business.buyer" and "buyer" as one field', () => {
    expect(['/business/buyer', 'business.buyer', 'buyer'].map(unknownField)).toEqual(['business.buyer', 'business.buyer', 'business.buyer']);
    expect(unknownField('/stage')).toBe('stage');
  });

  it('names each unknown whose field is filled, with its path and what to do', () => {
    const spec = emptyIntakeSpec();
    spec.problem = typed('Long waits');
    spec.business.buyer = typed('The ICB');
    spec.stage.value = 'pilot';
    spec.unknowns = [
      { field: 'problem', question: 'What problem?' },
      { field: 'business.budget_owner', question: 'Whose budget?' },
      { field: '/business/buyer', question: 'Who buys?' },
      { field: 'stage', question: 'Which stage?' },
    ];
    expect(filledUnknownErrors(spec, '/spec')).toEqual([
      { path: '/spec/unknowns/0', field: 'problem', message: 'Problem has a value, so it is not unknown: remove this entry from unknowns or clear the field' },
      {
        path: '/spec/unknowns/2',
        field: 'business.buyer',
        message: 'Buyer has a value, so it is not unknown: remove this entry from unknowns or clear the field',
      },
      { path: '/spec/unknowns/3', field: 'stage', message: 'Stage has a value, so it is not unknown: remove this entry from unknowns or clear the field' },
    ]);
    expect(withoutFilledUnknowns(spec).unknowns).toEqual([{ field: 'business.budget_owner', question: 'Whose budget?' }]);
  });

  it('finds nothing to remove in a document whose unknowns are all empty fields', () => {
    const spec = emptyIntakeSpec();
    spec.unknowns = [{ field: 'business.buyer', question: 'Who buys?' }];
    expect(filledUnknownErrors(spec)).toEqual([]);
    expect(withoutFilledUnknowns(spec)).toBe(spec);
  });
});
