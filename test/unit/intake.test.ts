import { beforeAll, describe, expect, it } from 'vitest';
import { type ExtractedSource, extractSources } from '../../compute/extraction.ts';
import { assertIntakeSpec, citedSourceIds, IntakeSpec as IntakeSpecSchema, intakeSpecErrors } from '../../domain/contracts/intakeSpec.ts';
import { isServiceError } from '../../domain/errors.ts';
import { type CitationLookup, checkCitations, citationLookupFrom, quoteAppearsIn, relocateCitations } from '../../domain/intake/citations.ts';
import { draftIntakeOffline, OFFLINE_DRAFT_LABEL } from '../../domain/intake/offlineDraft.ts';
import { draftSources } from '../../domain/intake/sources.ts';
import { buildIntakeDraftUserMessage, INTAKE_DRAFT_PROMPT, DRAFT_INPUT_CHARS_MAX } from '../../domain/prompts/intakeDraft.ts';
import { emptyIntakeSpec } from '../support/intakeSpecs.ts';
import { awsKeyFile, jsonFile, markdownFile, mixedPdf, PROJECT_BRIEF_TXT, textFile, textLayerPdf } from '../support/corpus.ts';

let processed: ExtractedSource[];
let excluded: ExtractedSource;
let lookup: CitationLookup;

beforeAll(async () => {
  const files = [textFile(), markdownFile(), jsonFile(), await textLayerPdf(), await mixedPdf(), awsKeyFile()];
  const sources = await extractSources(files.map((file) => file.input));
  processed = sources.filter((source) => source.status === 'processed');
  excluded = sources.find((source) => source.status === 'excluded_for_privacy')!;
  expect(processed).toHaveLength(5);
  lookup = citationLookupFrom(sources.map((source) => ({ ...source, belongs_to_project: true })));
});

describe('IntakeSpec 1.0.0 schema', () => {
  it('publishes $id IntakeSpec and accepts a minimal document', () => {
    expect((IntakeSpecSchema as { $id?: string }).$id).toBe('IntakeSpec');
    expect(intakeSpecErrors(emptyIntakeSpec())).toEqual([]);
  });

  it('refuses provenance observed, an unknown stage and a claim without citations, naming the fields', () => {
    const observed = emptyIntakeSpec() as unknown as Record<string, any>;
    observed.problem = { text: 'Waits are long', provenance: 'observed', citations: [] };
    expect(intakeSpecErrors(observed).map((error) => error.path)).toContain('/problem/provenance');
    const stage = emptyIntakeSpec() as unknown as Record<string, any>;
    stage.stage.value = 'scaling';
    expect(intakeSpecErrors(stage).map((error) => error.path)).toContain('/stage/value');
    const spec = emptyIntakeSpec() as unknown as Record<string, any>;
    spec.claims = [{ text: 'Cuts waits', topic: 'operational', provenance: 'user_declared', citations: [] }];
    expect(intakeSpecErrors(spec)).toEqual([{ path: '/claims/0/citations', message: 'must not have fewer than 1 items' }]);
    try {
      assertIntakeSpec(spec);
      expect.unreachable();
    } catch (error) {
      expect(isServiceError(error) && error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses a citation whose line_end is before line_start', () => {
    const spec = emptyIntakeSpec();
    spec.problem = { text: 'x', provenance: 'user_declared', citations: [{ source_id: 'src_a', line_start: 5, line_end: 4, quote: 'x' }] };
    expect(intakeSpecErrors(spec)).toEqual([{ path: '/problem/citations/0/line_end', message: 'must be >= line_start' }]);
  });
});

describe('checkCitations', () => {
  it('keeps a true quote and drops a fabricated one with the reason', () => {
    const brief = processed.find((source) => source.name === 'brief.txt')!;
    const true_line = PROJECT_BRIEF_TXT.split('\n').findIndex((line) => line.includes('reduces time to triage')) + 1;
    const spec = emptyIntakeSpec();
    spec.claims = [
      {
        text: 'The app cuts triage time by 40%.',
        topic: 'operational',
        provenance: 'user_declared',
        citations: [{ source_id: brief.id, line_start: true_line, line_end: true_line, quote: 'the app   reduces time to triage by 40%' }],
      },
      {
        text: 'The app halves mortality.',
        topic: 'clinical',
        provenance: 'user_declared',
        citations: [{ source_id: brief.id, line_start: true_line, line_end: true_line, quote: 'the app halves mortality' }],
      },
    ];
    const result = checkCitations(spec, lookup);
    expect(result.spec.claims.map((claim) => claim.text)).toEqual(['The app cuts triage time by 40%.']);
    expect(result.dropped).toEqual([
      {
        path: '/claims/1/citations/0',
        source_id: brief.id,
        line_start: true_line,
        line_end: true_line,
        reason: 'quote_not_in_lines',
        message: `the quote does not appear word for word in lines ${true_line}-${true_line}`,
      },
    ]);
    expect(result.dropped_claims).toEqual([{ path: '/claims/1', reason: 'no_valid_citation', message: expect.any(String) }]);
    expect(result.citations_kept).toBe(1);
    expect(intakeSpecErrors(result.spec)).toEqual([]);
  });

  it('drops citations of excluded, unknown or foreign sources and of lines that do not exist', () => {
    const brief = processed[0]!;
    const spec = emptyIntakeSpec();
    const cite = (source_id: string, line_start: number, line_end: number, quote: string) => ({ source_id, line_start, line_end, quote });
    spec.risks = [
      {
        text: 'risk',
        provenance: 'user_declared',
        citations: [
          cite(excluded.id, 1, 1, 'Deployment notes for the triage service'),
          cite('src_doesnotexist', 1, 1, 'anything'),
          cite(brief.id, 1, brief.line_count + 1, 'Project brief'),
          cite(brief.id, 1, 1, 'Project brief: FastTrack Referral'),
        ],
      },
    ];
    const foreign: CitationLookup = (id) => (id === brief.id ? { ...lookup(id)!, belongs_to_project: false } : lookup(id));
    expect(checkCitations(spec, lookup).dropped.map((drop) => drop.reason)).toEqual(['source_not_processed', 'source_not_in_project', 'lines_out_of_range']);
    expect(checkCitations(spec, lookup).spec.risks[0]!.citations).toHaveLength(1);
    expect(checkCitations(spec, foreign).dropped.map((drop) => drop.reason)).toEqual([
      'source_not_processed',
      'source_not_in_project',
      'source_not_in_project',
      'source_not_in_project',
    ]);
  });

  it('never echoes a quote in the dropped list', () => {
    const spec = emptyIntakeSpec();
    spec.problem = {
      text: 'x',
      provenance: 'user_declared',
      citations: [{ source_id: excluded.id, line_start: 2, line_end: 2, quote: 'secret-looking quote text' }],
    };
    expect(JSON.stringify(checkCitations(spec, lookup).dropped)).not.toContain('secret-looking');
  });

  it('matches word for word with only whitespace normalized, across lines, never inside a word', () => {
    expect(quoteAppearsIn('wait  too\nlong', 'patients wait too\n long for review')).toBe(true);
    expect(quoteAppearsIn('Wait too long', 'patients wait too long')).toBe(false); // case is not normalized
    expect(quoteAppearsIn('wait too lon', 'patients wait too long')).toBe(false); // ends inside a word
    expect(quoteAppearsIn('atients wait', 'patients wait too long')).toBe(false); // starts inside a word
    expect(quoteAppearsIn('wait, too long', 'patients wait too long')).toBe(false); // punctuation is not whitespace
  });
});

describe('relocateCitations: a citation is where the service finds its quote', () => {
  const cite = (source_id: string, line_start: number, line_end: number, quote: string) => ({ source_id, line_start, line_end, quote });
  const named = (name: string) => processed.find((source) => source.name === name)!;
  const drafted = () => processed.map((source) => ({ id: source.id, lines: source.lines! }));

  it('moves a true quote to the source and lines that hold it, narrows lines too wide, and leaves a quote found nowhere to be dropped', () => {
    const [brief, pathway] = [named('brief.txt'), named('pathway.md')];
    const spec = emptyIntakeSpec();
    spec.problem = { text: 'Patients wait', provenance: 'user_declared', citations: [cite(pathway.id, 1, 1, 'wait too long for a specialist review')] };
    spec.stage = { value: 'prototype', provenance: 'user_declared', citations: [cite(brief.id, 9, 9, 'working prototype')] };
    const claim = (text: string, citation: ReturnType<typeof cite>) => ({
      text,
      topic: 'operational' as const,
      provenance: 'user_declared' as const,
      citations: [citation],
    });
    spec.claims = [
      claim('Faster triage', cite('src_invented', 40, 41, 'reduces time to triage by 40%')),
      claim('Across two lines', cite(brief.id, 1, 9, 'primary care. Solution: an app')),
      claim('Halves mortality', cite(brief.id, 7, 7, 'the app halves mortality')),
    ];
    const { spec: relocated, moved } = relocateCitations(spec, drafted());
    expect(relocated.problem!.citations[0]).toEqual(cite(brief.id, 3, 3, 'wait too long for a specialist review'));
    expect(relocated.stage!.citations[0]).toEqual(cite(brief.id, 6, 6, 'working prototype'));
    expect(relocated.claims.map((each) => each.citations[0])).toEqual([
      cite(brief.id, 7, 7, 'reduces time to triage by 40%'),
      cite(brief.id, 3, 4, 'primary care. Solution: an app'),
      cite(brief.id, 7, 7, 'the app halves mortality'), // found nowhere: the model's citation, for the check to drop
    ]);
    expect(moved).toEqual([
      { path: '/problem/citations/0', from: { source_id: pathway.id, line_start: 1, line_end: 1 }, to: { source_id: brief.id, line_start: 3, line_end: 3 } },
      { path: '/stage/citations/0', from: { source_id: brief.id, line_start: 9, line_end: 9 }, to: { source_id: brief.id, line_start: 6, line_end: 6 } },
      {
        path: '/claims/0/citations/0',
        from: { source_id: 'src_invented', line_start: 40, line_end: 41 },
        to: { source_id: brief.id, line_start: 7, line_end: 7 },
      },
      { path: '/claims/1/citations/0', from: { source_id: brief.id, line_start: 1, line_end: 9 }, to: { source_id: brief.id, line_start: 3, line_end: 4 } },
    ]);
    expect(JSON.stringify(moved)).not.toContain('triage by 40%'); // no quote in what is logged
    const check = checkCitations(relocated, lookup);
    expect(check.spec.claims.map((each) => each.text)).toEqual(['Faster triage', 'Across two lines']);
    expect(check.dropped.map(({ path, reason }) => ({ path, reason }))).toEqual([{ path: '/claims/2/citations/0', reason: 'quote_not_in_lines' }]);
    expect(check.citations_kept).toBe(4);
    // the document the model sent is left as it was
    expect(spec.problem!.citations[0]!.source_id).toBe(pathway.id);
  });

  it('keeps the source and lines the model named when they hold the quote, whatever else holds it too', () => {
    const [brief, pathway] = [named('brief.txt'), named('pathway.md')];
    const spec = emptyIntakeSpec();
    spec.risks = [
      { text: 'in the brief', provenance: 'user_declared', citations: [cite(brief.id, 1, 1, 'FastTrack Referral')] },
      { text: 'in the pathway', provenance: 'user_declared', citations: [cite(pathway.id, 1, 1, 'FastTrack Referral')] },
      { text: 'nowhere named', provenance: 'user_declared', citations: [cite('src_invented', 1, 1, 'FastTrack Referral')] },
    ];
    const { spec: relocated, moved } = relocateCitations(spec, drafted());
    expect(relocated.risks.map((risk) => risk.citations[0]!.source_id)).toEqual([brief.id, pathway.id, processed[0]!.id]);
    expect(moved.map((each) => each.path)).toEqual(['/risks/2/citations/0']);
  });
});

describe('offline drafter', () => {
  it('drafts a schema-valid IntakeSpec whose every citation passes checkCitations', () => {
    const spec = draftIntakeOffline(processed);
    expect(intakeSpecErrors(spec)).toEqual([]);
    const result = checkCitations(spec, lookup);
    expect(result.dropped).toEqual([]);
    expect(result.dropped_claims).toEqual([]);
    expect(result.citations_kept).toBeGreaterThan(8);
    expect(spec.drafted_by).toMatchObject(OFFLINE_DRAFT_LABEL);
    expect(spec.drafted_by?.summary).toMatch(/^Found \d of 8 parts in your material/);
  });

  it('finds the labelled facts of the corpus and cites their lines', () => {
    const spec = draftIntakeOffline(processed);
    expect(spec.problem?.text).toBe('patients referred for suspected skin cancer wait too long for a specialist review in primary care.');
    expect(spec.proposed_solution?.text).toMatch(/^an app that lets GP practice nurses/);
    expect(spec.stage.value).toBe('prototype');
    expect(spec.business.buyer?.text).toBe('the integrated care board commissioning dermatology services.');
    expect(spec.care_setting?.text).toBe('General practice surgeries in one integrated care system');
    expect(spec.care_pathway.status).toBe('described');
    expect(spec.care_pathway.steps.map((step) => step.order)).toEqual([1, 2, 3]);
    expect(spec.claims.some((claim) => claim.text.includes('reduces time to triage by 40%'))).toBe(true);
    for (const claim of spec.claims) expect(claim.provenance).toBe('user_declared');
    expect(JSON.stringify(spec)).not.toContain('"observed"');
  });

  it('lists what it cannot find as unknowns instead of guessing', () => {
    const spec = draftIntakeOffline([{ id: 'src_x', name: 'note', status: 'processed', lines: ['A short note about nothing in particular.'] }]);
    expect(spec.problem).toBeNull();
    expect(spec.stage.value).toBeNull();
    expect(spec.unknowns.map((unknown) => unknown.field)).toEqual(expect.arrayContaining(['problem', 'stage', 'business.buyer', 'care_pathway']));
    expect(intakeSpecErrors(spec)).toEqual([]);
  });

  it('is deterministic', () => {
    expect(draftIntakeOffline(processed)).toEqual(draftIntakeOffline(processed));
  });

  it('refuses a source that is not processed', () => {
    expect(() => draftIntakeOffline([{ id: excluded.id, name: excluded.name, status: excluded.status, lines: excluded.quarantined_lines }])).toThrow(
      /processed/,
    );
  });
});

describe('drafting prompt', () => {
  it('is published with id, version, purpose, system and instructions', () => {
    expect(INTAKE_DRAFT_PROMPT).toMatchObject({ id: 'intake-draft', version: '1.0.0' });
    expect(INTAKE_DRAFT_PROMPT.instructions).toContain('user_declared');
    expect(INTAKE_DRAFT_PROMPT.purpose.length).toBeGreaterThan(20);
  });

  it('numbers the lines of processed sources under their ids', () => {
    const message = buildIntakeDraftUserMessage(processed);
    for (const source of processed) expect(message).toContain(`<source id="${source.id}"`);
    expect(message).toContain('3| Problem: patients referred');
    expect(citedSourceIds(draftIntakeOffline(processed)).every((id) => message.includes(id))).toBe(true);
  });

  it('refuses to build a message holding an excluded source', () => {
    expect(() => buildIntakeDraftUserMessage([...processed, excluded])).toThrow(/only processed sources/);
  });

  it('refuses sources longer than DRAFT_INPUT_CHARS_MAX, naming the limit', () => {
    const lines = Array.from({ length: 10_000 }, () => 'x'.repeat(80));
    expect(() => buildIntakeDraftUserMessage([{ id: 'src_big', name: 'big', status: 'processed', lines }])).toThrow(
      `DRAFT_INPUT_CHARS_MAX is ${DRAFT_INPUT_CHARS_MAX}`,
    );
  });
});

describe('draftSources: which requested sources a draft may read', () => {
  const candidates = [
    { id: 'src_a', project_id: 'proj_1', status: 'processed' as const },
    { id: 'src_b', project_id: null, status: 'processed' as const },
    { id: 'src_c', project_id: 'proj_1', status: 'excluded_for_privacy' as const },
    { id: 'src_d', project_id: 'proj_2', status: 'processed' as const },
  ];
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (isServiceError(error)) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('reads processed sources of this project or unattached ones, once each, and lists the skipped', () => {
    expect(draftSources(['src_a', 'src_b', 'src_a', 'src_c'], candidates, 'proj_1')).toEqual({ processed: ['src_a', 'src_b'], skipped: ['src_c'] });
  });

  it('answers 404 for a source it did not find (another organization looks the same), pointing at the request index', () => {
    const error = refusal(() => draftSources(['src_a', 'src_x'], candidates, 'proj_1'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toEqual([{ path: '/source_ids/1', message: 'not found' }]);
  });

  it("refuses another project's source with 422", () => {
    const error = refusal(() => draftSources(['src_d'], candidates, 'proj_1'));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('belongs to another project');
  });

  it('refuses a request with no processed source, naming each status', () => {
    const error = refusal(() => draftSources(['src_c'], candidates, 'proj_1'));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details).toEqual([{ path: '/source_ids/0', message: 'status is excluded_for_privacy', status: 'excluded_for_privacy' }]);
  });
});

describe('the offline drafter and a labelled field', () => {
  it('takes a labelled field from its label only: the solution line that mentions its users is not an intended user', () => {
    const lines = [
      'Problem: heart failure patients are readmitted to hospital within 30 days of discharge.',
      'Our solution: a remote monitoring app that nurses use to review daily weight and symptoms.',
      'Intended users: heart failure nurses in community care.',
      'Stage: idea, nothing is built yet.',
    ];
    const spec = draftIntakeOffline([{ id: 'src_a', name: 'brief.txt', status: 'processed', lines }]);
    expect(spec.intended_users.map((user) => user.citations[0]!.line_start)).toEqual([3]);
    expect(spec.proposed_solution?.citations[0]?.line_start).toBe(2);
  });
});
