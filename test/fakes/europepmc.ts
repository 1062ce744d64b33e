// A fake Europe PMC REST service: GET /search (format=json, resultType=core, cursorMark paging) and
// GET /{PMCID}/fullTextXML (JATS), serving records the tests build with europePmcRecord().
import { type FakeReply, type FakeServer, type RecordedRequest, startFakeServer } from './http.ts';

export type FakeEuropePmcRecord = {
  /** The core result exactly as Europe PMC's JSON carries it. */
  result: Record<string, unknown>;
  /** The JATS document served at /{PMCID}/fullTextXML; undefined gives 404 there. */
  full_text_xml?: string;
};

export type EuropePmcRecordInput = {
  pmid: string;
  title: string;
  pmcid?: string;
  doi?: string;
  abstract?: string;
  authors?: string;
  journal?: string;
  year?: number;
  pub_types?: string[];
  /** As Europe PMC writes it, e.g. "cc by", "CC BY-NC", "cc0"; omitted means no licence stated. */
  license?: string;
  open_access?: boolean;
  in_epmc?: boolean;
  comment_corrections?: Array<{ type: string; id?: string; source?: string; reference?: string }>;
  /** Paragraphs of the article body; given, the fake serves a JATS document for the PMCID. */
  body_paragraphs?: string[];
};

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A JATS article as Europe PMC serves it: DOCTYPE, front matter with metadata, body sections, a reference list. */
export function jatsArticle(input: { pmcid: string; title: string; abstract?: string; body_paragraphs: string[] }): string {
  const paragraphs = input.body_paragraphs.map((text) => `      <p>${escapeXml(text)}</p>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange DTD v1.3 20210610//EN" "JATS-archivearticle1-3.dtd">
<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML" article-type="research-article">
  <front>
    <journal-meta><journal-title-group><journal-title>Fake Journal of Digital Health</journal-title-group></journal-meta>
    <article-meta>
      <article-id pub-id-type="pmcid">${input.pmcid}</article-id>
      <title-group><article-title>${escapeXml(input.title)}</article-title></title-group>
      <contrib-group><contrib contrib-type="author"><name><surname>Metadata</surname><given-names>Author</given-names></name></contrib></contrib-group>
      <permissions><license license-type="open-access"><license-p>This article is distributed under a Creative Commons licence.</license-p></license></permissions>
      ${input.abstract ? `<abstract><p>${escapeXml(input.abstract)}</p></abstract>` : ''}
    </article-meta>
  </front>
  <body>
    <sec>
      <title>Results</title>
${paragraphs}
      <p>Outcomes were measured at <italic>12&#x000a0;months</italic> &#x02013; see <xref ref-type="bibr" rid="R1">1</xref>.</p>
      <disp-formula><mml:math><mml:mi>x</mml:mi></mml:math></disp-formula>
    </sec>
  </body>
  <back>
    <ref-list><ref id="R1"><mixed-citation>Reference list text that is not the article.</mixed-citation></ref></ref-list>
  </back>
</article>`;
}

/** A core search result in Europe PMC's JSON shape, plus its JATS full text where body paragraphs are given. */
export function europePmcRecord(input: EuropePmcRecordInput): FakeEuropePmcRecord {
  const source = 'MED';
  const result: Record<string, unknown> = {
    id: input.pmid,
    source,
    pmid: input.pmid,
    ...(input.pmcid ? { pmcid: input.pmcid } : {}),
    ...(input.doi ? { doi: input.doi } : {}),
    title: input.title,
    authorString: input.authors ?? 'Doe J, Roe R.',
    authorList: { author: [{ fullName: 'Doe J', firstName: 'Jane', lastName: 'Doe', initials: 'J' }] },
    journalInfo: {
      issue: '1',
      volume: '10',
      journalIssueId: 1,
      dateOfPublication: `${input.year ?? 2021}`,
      yearOfPublication: input.year ?? 2021,
      journal: { title: input.journal ?? 'Fake Journal of Digital Health', ISOAbbreviation: 'Fake J Digit Health' },
    },
    pubYear: String(input.year ?? 2021),
    abstractText: input.abstract ?? `Abstract of ${input.title}.`,
    language: 'eng',
    pubModel: 'Electronic',
    pubTypeList: { pubType: input.pub_types ?? ['Journal Article'] },
    isOpenAccess: input.open_access ? 'Y' : 'N',
    inEPMC: (input.in_epmc ?? input.open_access) ? 'Y' : 'N',
    inPMC: input.pmcid ? 'Y' : 'N',
    hasPDF: input.open_access ? 'Y' : 'N',
    citedByCount: 3,
    firstPublicationDate: `${input.year ?? 2021}-01-15`,
    ...(input.license ? { license: input.license } : {}),
    ...(input.comment_corrections
      ? { commentCorrectionList: { commentCorrection: input.comment_corrections.map((item) => ({ source: 'MED', orientation: 'to', ...item })) } }
      : {}),
  };
  const full_text_xml =
    input.pmcid && input.body_paragraphs
      ? jatsArticle({ pmcid: input.pmcid, title: input.title, abstract: input.abstract, body_paragraphs: input.body_paragraphs })
      : undefined;
  return { result, full_text_xml };
}

export type EuropePmcDownMode = false | 'status_503' | 'connection_closed';

export type FakeEuropePmc = FakeServer & {
  /** The base URL a client is given (Europe PMC's is .../europepmc/webservices/rest). */
  base_url: string;
  records: FakeEuropePmcRecord[];
  /** Switch the service down (503 or dropped connections) or back up. */
  down: EuropePmcDownMode;
  searches(): RecordedRequest[];
  fullTextRequests(): RecordedRequest[];
  /** Holds every reply (requests are still recorded on arrival) until the returned release() is called. */
  hold(): () => void;
};

const BASE_PATH = '/europepmc/webservices/rest';
const FULL_TEXT_PATH = /^\/europepmc\/webservices\/rest\/(PMC\d+)\/fullTextXML$/;

export async function startFakeEuropePmc(records: FakeEuropePmcRecord[] = []): Promise<FakeEuropePmc> {
  const state: { down: EuropePmcDownMode; records: FakeEuropePmcRecord[]; held: Promise<void> | null } = { down: false, records, held: null };
  const handle = async (request: RecordedRequest): Promise<FakeReply> => {
    if (state.held) await state.held;
    if (state.down === 'connection_closed') return { status: 0, destroy: true };
    if (state.down === 'status_503')
      return { status: 503, text: '<html><body>Service Temporarily Unavailable</body></html>', headers: { 'content-type': 'text/html' } };
    if (request.method !== 'GET') return { status: 405, text: 'Method Not Allowed' };
    if (request.path === `${BASE_PATH}/search`) return search(request, state.records);
    const match = FULL_TEXT_PATH.exec(request.path);
    if (match) {
      const record = state.records.find((item) => item.result['pmcid'] === match[1]);
      if (!record?.full_text_xml) return { status: 404, text: '', headers: { 'content-type': 'application/xml' } };
      return { status: 200, text: record.full_text_xml, headers: { 'content-type': 'application/xml' } };
    }
    return { status: 404, text: 'Not Found' };
  };
  const server = await startFakeServer(handle);
  return {
    ...server,
    base_url: `${server.url}${BASE_PATH}`,
    get records() {
      return state.records;
    },
    set records(value) {
      state.records = value;
    },
    get down() {
      return state.down;
    },
    set down(value) {
      state.down = value;
    },
    searches: () => server.requests.filter((request) => request.path.endsWith('/search')),
    fullTextRequests: () => server.requests.filter((request) => request.path.endsWith('/fullTextXML')),
    hold: () => {
      let release = () => {};
      state.held = new Promise<void>((resolve) => {
        release = () => {
          state.held = null;
          resolve();
        };
      });
      return release;
    },
  };
}

// The fake does not evaluate the query language: every search returns all records, paged by cursorMark.
function search(request: RecordedRequest, records: FakeEuropePmcRecord[]): FakeReply {
  const query = request.query.get('query');
  if (!query) return { status: 400, body: { errCode: 400, errMsg: 'query parameter is required' } };
  if (request.query.get('format') !== 'json') return { status: 200, text: '<responseWrapper/>', headers: { 'content-type': 'application/xml' } };
  const pageSize = Math.min(Math.max(Number(request.query.get('pageSize') ?? '25') || 25, 1), 1000);
  const cursor = request.query.get('cursorMark') ?? '*';
  const start = cursor === '*' ? 0 : Number(cursor.replace(/^fake-/, '')) || 0;
  const page = records.slice(start, start + pageSize).map((record) => record.result);
  const next = start + page.length;
  return {
    status: 200,
    body: {
      version: '6.9',
      hitCount: records.length,
      nextCursorMark: next < records.length ? `fake-${next}` : cursor,
      request: { queryString: query, resultType: request.query.get('resultType') ?? 'lite', cursorMark: cursor, pageSize, sort: '', synonym: false },
      resultList: { result: page },
    },
  };
}
