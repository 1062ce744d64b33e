// Pure literature rules: the query from the intake, publication-type classification, licence reading.
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../domain/errors.ts';
import {
  buildLiteratureQuery,
  classifyPublicationTypes,
  type EuropePmcResult,
  includedRecords,
  literatureQueryLadder,
  LITERATURE_QUERY_CHARS_MAX,
  normalizeLicence,
  toLiteratureRecord,
} from '../../domain/reviews/literature.ts';
import { europePmcRecord } from '../fakes/europepmc.ts';

const NONE = { retracted_publication: false, retraction_notice: false, correction_notice: false, corrected: false, expression_of_concern: false };

describe('classifyPublicationTypes', () => {
  it.each([
    [['Journal Article', 'Retracted Publication'], { retracted_publication: true }],
    [['retracted-publication'], { retracted_publication: true }],
    [['Retracted Article'], { retracted_publication: true }],
    [['Retraction of Publication'], { retraction_notice: true }],
    [['retraction-of-publication'], { retraction_notice: true }],
    [['retraction'], { retraction_notice: true }],
    [['Published Erratum'], { correction_notice: true }],
    [['published-erratum'], { correction_notice: true }],
    [['Correction'], { correction_notice: true }],
    [['CORRECTION'], { correction_notice: true }],
    [['Corrected and Republished Article'], { corrected: true }],
    [['Expression of Concern'], { expression_of_concern: true }],
    [['expression-of-concern'], { expression_of_concern: true }],
    [['Journal Article', 'research-article', 'Randomized Controlled Trial'], {}],
  ])('classifies %j', (types, expected) => {
    expect(classifyPublicationTypes(types)).toEqual({ ...NONE, ...expected });
  });
});

describe('toLiteratureRecord', () => {
  const raw = (input: Parameters<typeof europePmcRecord>[0]) => europePmcRecord(input).result as EuropePmcResult;

  it('excludes a retracted publication with its reason and never opens its text', () => {
    const record = toLiteratureRecord(
      raw({ pmid: '1', title: 'Retracted trial', pub_types: ['Journal Article', 'Retracted Publication'], license: 'cc by', open_access: true, pmcid: 'PMC1' }),
    );
    expect(record.status).toBe('excluded');
    expect(record.exclusion_reason).toBe('retracted_publication');
    expect(record.notes).toContain('excluded: the publication has been retracted');
    expect(record.full_text_access).toBe('support_not_verified');
  });

  it('excludes a record whose comment-correction list says a retraction was published, even without the publication type', () => {
    const record = toLiteratureRecord(
      raw({ pmid: '2', title: 'Quietly retracted', comment_corrections: [{ type: 'Retraction in', id: '99', reference: 'J Fake. 2023;1:2' }] }),
    );
    expect(record.exclusion_reason).toBe('retracted_publication');
    expect(record.notes.join(' ')).toContain('retraction notice published: J Fake. 2023;1:2');
  });

  it('excludes a retraction notice', () => {
    const record = toLiteratureRecord(raw({ pmid: '3', title: 'Retraction: Remote monitoring trial', pub_types: ['Retraction of Publication'] }));
    expect(record.status).toBe('excluded');
    expect(record.exclusion_reason).toBe('retraction_notice');
  });

  it('keeps a corrected paper and notes the correction', () => {
    const record = toLiteratureRecord(
      raw({ pmid: '4', title: 'Corrected trial', comment_corrections: [{ type: 'Erratum in', id: '55', reference: 'J Fake. 2022;3:4' }] }),
    );
    expect(record.status).toBe('included');
    expect(record.flags.corrected).toBe(true);
    expect(record.notes).toContain('correction published: J Fake. 2022;3:4');
  });

  it('keeps an expression of concern but notes it', () => {
    const record = toLiteratureRecord(raw({ pmid: '5', title: 'Concerning', pub_types: ['Expression of Concern'] }));
    expect(record.status).toBe('included');
    expect(record.flags.expression_of_concern).toBe(true);
    expect(record.notes).toContain('the record is an expression of concern');
  });

  it('allows full text only for an openly licensed open-access record with a PMCID', () => {
    const open = toLiteratureRecord(raw({ pmid: '6', title: 'Open', pmcid: 'PMC6', license: 'CC BY-NC 4.0', open_access: true }));
    expect(open.licence).toBe('cc-by-nc');
    expect(open.full_text_access).toBe('open_licence');
    const unlicensed = toLiteratureRecord(raw({ pmid: '7', title: 'Closed', pmcid: 'PMC7', open_access: false }));
    expect(unlicensed.full_text_access).toBe('support_not_verified');
    expect(unlicensed.full_text_reason).toBe('no licence is stated');
    const unknown = toLiteratureRecord(raw({ pmid: '8', title: 'Odd licence', pmcid: 'PMC8', license: 'all rights reserved', open_access: true }));
    expect(unknown.full_text_access).toBe('support_not_verified');
    const noPmcid = toLiteratureRecord(raw({ pmid: '9', title: 'No PMCID', license: 'cc by', open_access: true }));
    expect(noPmcid.full_text_access).toBe('support_not_verified');
  });

  it('reads a single pubType string and absent fields without failing', () => {
    const record = toLiteratureRecord({ id: '10', source: 'MED', pubTypeList: { pubType: 'Retracted Publication' } });
    expect(record.exclusion_reason).toBe('retracted_publication');
    expect(record.title).toBe('(untitled)');
    expect(includedRecords([record])).toEqual([]);
  });
});

describe('normalizeLicence', () => {
  it.each([
    ['cc by', 'cc-by'],
    ['CC BY-SA', 'cc-by-sa'],
    ['cc by-nc-nd', 'cc-by-nc-nd'],
    ['CC0', 'cc0'],
    ['CC0 1.0', 'cc0'],
    ['cc_by_4.0', 'cc-by'],
    ['Creative Commons BY', 'cc-by'],
  ])('reads %s as %s', (input, expected) => {
    expect(normalizeLicence(input)).toBe(expected);
  });
  it('gives null for no licence', () => {
    expect(normalizeLicence(undefined)).toBeNull();
    expect(normalizeLicence('  ')).toBeNull();
  });
});

describe('buildLiteratureQuery', () => {
  it('ANDs the fields, ORs values within one, and quotes short values as phrases', () => {
    expect(
      buildLiteratureQuery({
        condition: 'heart failure',
        intervention: ['remote monitoring', 'telemonitoring'],
        setting: 'primary care',
        users: 'community nurses',
      }),
    ).toBe('"heart failure" AND ("remote monitoring" OR "telemonitoring") AND ("primary care" OR "community nurses")');
  });

  it('searches a sentence by its first content words and strips query syntax', () => {
    const query = buildLiteratureQuery({ condition: 'Older adults with "heart failure" are readmitted (often) after discharge: NOT good' });
    expect(query).toBe('(older AND adults AND heart AND failure)');
    expect(query).not.toContain('"heart');
  });

  it('refuses an intake with nothing to search for', () => {
    expect(() => buildLiteratureQuery({ condition: '  ', users: [] })).toThrow(ServiceError);
  });

  it('refuses a query above the named limit', () => {
    const long = Array.from({ length: 5 }, (_, i) => `${'x'.repeat(100)}${i} ${'y'.repeat(100)}${i}`);
    expect(() => buildLiteratureQuery({ condition: long, intervention: long, setting: long, keywords: long })).toThrow(
      `LITERATURE_QUERY_CHARS_MAX (${LITERATURE_QUERY_CHARS_MAX})`,
    );
  });

  it('offers broader queries, narrowest first, without duplicates', () => {
    expect(literatureQueryLadder({ condition: 'asthma', intervention: 'inhaler app', users: 'children' })).toEqual([
      '"asthma" AND "inhaler app" AND "children"',
      '"asthma" AND "inhaler app"',
      '"inhaler app" AND "children"',
      '"asthma"',
      '"inhaler app"',
    ]);
  });
});
