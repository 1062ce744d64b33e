// The Europe PMC client against a local fake Europe PMC speaking the REST API's JSON and JATS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchOpenAccessText, LITERATURE_FAILURE_TYPES, searchLiterature } from '../../integrations/europepmc/client.ts';
import { buildLiteratureQuery, includedRecords, type LiteratureRecord } from '../../domain/reviews/literature.ts';
import { europePmcRecord, type FakeEuropePmc, startFakeEuropePmc } from '../fakes/europepmc.ts';
import { applicationFailureOf } from '../support/failures.ts';

const OPEN_QUOTE = 'Hospital admissions fell by 20% in the remote monitoring group.';

function library() {
  return [
    europePmcRecord({
      pmid: '100',
      title: 'Remote monitoring cut admissions (retracted)',
      pub_types: ['Journal Article', 'Retracted Publication'],
      pmcid: 'PMC100',
      license: 'cc by',
      open_access: true,
      body_paragraphs: ['Fabricated results.'],
    }),
    europePmcRecord({ pmid: '101', title: 'Retraction: Remote monitoring cut admissions', pub_types: ['Retraction of Publication'] }),
    europePmcRecord({
      pmid: '102',
      title: 'Telemonitoring in heart failure: a cohort',
      pub_types: ['Journal Article'],
      comment_corrections: [{ type: 'Erratum in', id: '103', reference: 'Fake J. 2022;4:5' }],
    }),
    europePmcRecord({
      pmid: '104',
      title: 'Remote monitoring in primary care: a randomized trial',
      pmcid: 'PMC104',
      license: 'cc by',
      open_access: true,
      body_paragraphs: [OPEN_QUOTE, 'Adherence was high.'],
    }),
    europePmcRecord({ pmid: '105', title: 'A closed-access trial of telemonitoring', pmcid: 'PMC105', open_access: false }),
  ];
}

describe('Europe PMC client', () => {
  let fake: FakeEuropePmc;
  let records: LiteratureRecord[];
  const query = buildLiteratureQuery({ condition: 'heart failure', intervention: 'remote monitoring' });
  const byPmid = (pmid: string) => records.find((record) => record.pmid === pmid)!;

  beforeAll(async () => {
    fake = await startFakeEuropePmc(library());
    records = await searchLiterature({ base_url: fake.base_url, query, limit: 25 });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('searches with the core result type, JSON format, page size and a first cursor', () => {
    expect(fake.searches()).toHaveLength(1);
    const search = fake.searches()[0]!;
    expect(search.query.get('query')).toBe(query);
    expect(search.query.get('format')).toBe('json');
    expect(search.query.get('resultType')).toBe('core');
    expect(search.query.get('pageSize')).toBe('25');
    expect(search.query.get('cursorMark')).toBe('*');
    expect(records.map((record) => record.record_id)).toEqual(['MED:100', 'MED:101', 'MED:102', 'MED:104', 'MED:105']);
  });

  it('excludes the retracted paper with its reason', () => {
    expect(byPmid('100').status).toBe('excluded');
    expect(byPmid('100').exclusion_reason).toBe('retracted_publication');
  });

  it('excludes the retraction notice', () => {
    expect(byPmid('101').status).toBe('excluded');
    expect(byPmid('101').exclusion_reason).toBe('retraction_notice');
  });

  it('keeps the corrected paper with a correction note', () => {
    expect(byPmid('102').status).toBe('included');
    expect(byPmid('102').notes).toContain('correction published: Fake J. 2022;4:5');
    expect(includedRecords(records).map((record) => record.pmid)).toEqual(['102', '104', '105']);
  });

  it('fetches the open-access paper’s text as plain text, references left out', async () => {
    const text = await fetchOpenAccessText({ base_url: fake.base_url, record: byPmid('104') });
    expect(text).not.toBeNull();
    expect(text).toContain(OPEN_QUOTE);
    expect(text).toContain('Remote monitoring in primary care: a randomized trial');
    expect(text).toContain('Outcomes were measured at 12 months – see 1.');
    expect(text).not.toContain('Reference list text');
    expect(fake.fullTextRequests().map((request) => request.path)).toContain('/europepmc/webservices/rest/PMC104/fullTextXML');
  });

  it('marks the closed-access paper support not verified and makes no full-text request for it or the retracted one', async () => {
    const closed = byPmid('105');
    expect(closed.full_text_access).toBe('support_not_verified');
    expect(await fetchOpenAccessText({ base_url: fake.base_url, record: closed })).toBeNull();
    expect(await fetchOpenAccessText({ base_url: fake.base_url, record: byPmid('100') })).toBeNull();
    const paths = fake.fullTextRequests().map((request) => request.path);
    expect(paths.some((path) => path.includes('PMC105'))).toBe(false);
    expect(paths.some((path) => path.includes('PMC100'))).toBe(false);
  });

  it('gives null when Europe PMC holds no full text for an open record (404)', async () => {
    const orphan = { ...byPmid('104'), pmcid: 'PMC999', record_id: 'MED:999' };
    expect(await fetchOpenAccessText({ base_url: fake.base_url, record: orphan })).toBeNull();
  });

  it('refuses a limit above the named maximum before any request', async () => {
    const before = fake.requests.length;
    const failure = await applicationFailureOf(searchLiterature({ base_url: fake.base_url, query, limit: 101 }));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('LITERATURE_SEARCH_LIMIT_MAX (100)');
    expect(fake.requests).toHaveLength(before);
  });
});

describe('Europe PMC down', () => {
  let fake: FakeEuropePmc;
  beforeAll(async () => {
    fake = await startFakeEuropePmc(library());
  });
  afterAll(async () => {
    await fake.close();
  });

  it('gives a retryable LiteratureUnavailable failure on 503', async () => {
    fake.down = 'status_503';
    const failure = await applicationFailureOf(searchLiterature({ base_url: fake.base_url, query: '"asthma"', limit: 5 }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe(LITERATURE_FAILURE_TYPES.unavailable);
    expect(failure.message).toContain('Europe PMC is unavailable (503)');
  });

  it('gives a retryable failure when the connection is dropped', async () => {
    fake.down = 'connection_closed';
    const failure = await applicationFailureOf(searchLiterature({ base_url: fake.base_url, query: '"asthma"', limit: 5 }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe(LITERATURE_FAILURE_TYPES.unavailable);
    expect(failure.message).toContain('Europe PMC could not be reached');
  });

  it('gives a retryable failure when nothing listens on the port', async () => {
    const gone = await startFakeEuropePmc();
    const base_url = gone.base_url;
    await gone.close();
    const failure = await applicationFailureOf(searchLiterature({ base_url, query: '"asthma"', limit: 5 }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe(LITERATURE_FAILURE_TYPES.unavailable);
  });

  it('gives a retryable failure when a full-text request meets a 503', async () => {
    fake.down = false;
    const [, , , open] = await searchLiterature({ base_url: fake.base_url, query: '"asthma"', limit: 5 });
    fake.down = 'status_503';
    const failure = await applicationFailureOf(fetchOpenAccessText({ base_url: fake.base_url, record: open! }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('full text of PMC104');
  });
});
