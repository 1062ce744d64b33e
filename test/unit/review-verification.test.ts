// Evidence verification, the offline heuristics and the assembled ConceptReview 1.0.0.
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { jatsToPlainText } from '../../integrations/europepmc/client.ts';
import { ConceptReview } from '../../domain/contracts/conceptReview.ts';
import { planEvaluations } from '../../domain/plans/planner.ts';
import { ConceptReviewDraft } from '../../domain/prompts/reviewDraft.ts';
import { buildReviewJudgeUserMessage, reviewJudgeSystem } from '../../domain/prompts/reviewJudge.ts';
import { buildReviewDraftUserMessage, reviewDraftSystem } from '../../domain/prompts/reviewDraft.ts';
import { DIMENSION_IDS, DIMENSIONS } from '../../domain/reviews/dimensions.ts';
import { canMoveReview, FINISHED_REVIEW_STATES, REVIEW_STATES } from '../../domain/reviews/states.ts';
import { type EuropePmcResult, toLiteratureRecord } from '../../domain/reviews/literature.ts';
import { clipUtf8, DRAFT_PROMPT_BYTES_MAX, JUDGE_PROMPT_BYTES_MAX, reviewTokenEstimate, utf8Bytes } from '../../domain/reviews/limits.ts';
import { draftReviewOffline, judgeSupportOffline, sentencesFound, topicWords } from '../../domain/reviews/offline.ts';
import { mentionIndex, REMOVED_MENTION_MARK, scrubMentions } from '../../domain/reviews/mentions.ts';
import { assembleConceptReview, finalizeClaims, precheckClaims, quoteAppearsIn, type RetrievedRecord } from '../../domain/reviews/verify.ts';
import { fiveLiteratureRecords, ideaStageIntake, OPEN_SENTENCE, SCRIPTED_EXPECTED, said, scriptedDraft } from '../support/reviewFixtures.ts';

function retrieved(): RetrievedRecord[] {
  return fiveLiteratureRecords().map((fake) => {
    const record = toLiteratureRecord(fake.result as EuropePmcResult);
    const open = record.status === 'included' && record.full_text_access === 'open_licence' && fake.full_text_xml ? jatsToPlainText(fake.full_text_xml) : null;
    return { record, open_text: open };
  });
}

function keysDeep(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) keysDeep(item, out);
  else if (value !== null && typeof value === 'object') for (const [key, inner] of Object.entries(value)) out.push(key, ...keysDeep(inner, []));
  return out;
}

describe('evidence verification', () => {
  it('matches quotes with whitespace normalized only', () => {
    expect(quoteAppearsIn('reduced  heart\nfailure', 'Monitoring reduced heart failure readmissions')).toBe(true);
    expect(quoteAppearsIn('Reduced heart failure', 'Monitoring reduced heart failure readmissions')).toBe(false);
    expect(quoteAppearsIn('reduced heart-failure', 'Monitoring reduced heart failure readmissions')).toBe(false);
    expect(quoteAppearsIn('   ', 'anything')).toBe(false);
  });

  it('gives each claim the check that failed and supports only claims passing all three', () => {
    const records = retrieved();
    const prechecked = precheckClaims(scriptedDraft(), records);
    expect(prechecked.filter((c) => c.failed_check === null).map((c) => c.claim_id)).toEqual(SCRIPTED_EXPECTED.judge_order);
    const judgements = SCRIPTED_EXPECTED.judge_order.map((claim_id) => ({ claim_id, agrees: claim_id !== 'feasibility.1', reason: 'scripted' }));
    const claims = finalizeClaims(prechecked, judgements);
    const byId = Object.fromEntries(claims.map((c) => [c.claim_id, c]));
    expect(byId['need.1']).toMatchObject({ supported: true, failed_check: null, checks: { record_retrieved: true, quote_found: true, judge_agrees: true } });
    expect(byId['users.1']).toMatchObject({ supported: false, failed_check: 'quote_not_found' });
    expect(byId['workflow_fit.1']).toMatchObject({ supported: false, failed_check: 'unverified_record', record_id: null, quote: '' });
    expect(byId['equity.1']).toMatchObject({ supported: false, failed_check: 'unverified_record', record_id: null, quote: '' });
    expect(byId['feasibility.1']).toMatchObject({ supported: false, failed_check: 'judge_disagrees' });
    expect(byId['adoption.1']).toMatchObject({ supported: false, failed_check: 'support_not_verified', checks: { quote_found: null } });
    expect(byId['evaluation_plan.1']).toMatchObject({ supported: true });

    const plan = planEvaluations({ intake: ideaStageIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    const label = { provider: 'openai', model: 'fake', heuristic: false, prompt_id: 'review-draft' };
    const review = assembleConceptReview({
      review_id: 'rev_x',
      project_id: 'proj_x',
      plan_id: 'plan_x',
      plan,
      draft: scriptedDraft(),
      claims,
      retrieved: records,
      query: 'q',
      searched_at: new Date(0).toISOString(),
      drafted_by: label,
      judged_by: { ...label, prompt_id: 'review-judge' },
    });
    expect(Value.Check(ConceptReview, review)).toBe(true);
    expect(review.evidence_summary).toEqual({ claims_total: 7, claims_supported: 2, failed_checks: SCRIPTED_EXPECTED.failed_checks });
    expect(review.dimensions.map((d) => d.id)).toEqual([...DIMENSION_IDS]);
    expect(review.dimensions.every((d) => d.label === 'ai_hypothesis')).toBe(true);
    // retracted records never appear as evidence: listed as excluded in the citation record only
    const evidenceIds = review.dimensions.flatMap((d) => d.evidence_claims.map((c) => c.record_id));
    expect(evidenceIds).not.toContain('MED:1001');
    expect(evidenceIds).not.toContain('MED:1002');
    expect(review.literature.records.filter((r) => r.status === 'excluded').map((r) => [r.record_id, r.exclusion_reason])).toEqual([
      ['MED:1001', 'retracted_publication'],
      ['MED:1002', 'retraction_notice'],
    ]);
    expect(review.literature.records.find((r) => r.record_id === 'MED:1003')?.notes.join(' ')).toMatch(/correction/);
    expect(review.literature.records.find((r) => r.record_id === 'MED:1005')?.full_text).toBe('support_not_verified');
    expect(review.disclaimer).toMatch(/not a verified finding and not advice/);
    expect(review.disclaimer).toMatch(/demand, willingness to pay, revenue or clinical benefit/);
    expect(review.business_questions.buyer.status).toBe('unknown');
    expect(keysDeep(review).filter((k) => /score|viab|rating/i.test(k))).toEqual([]);
    // the identifiers of claims whose record was never retrieved or was excluded are removed and listed
    expect(review.removed_mentions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: expect.stringMatching(/^\/dimensions\/2\/evidence_claims\/0\/record_id$/),
          removed: 'MED:1001',
          reason: expect.stringContaining('retracted_publication'),
        }),
        expect.objectContaining({
          path: expect.stringMatching(/^\/dimensions\/4\/evidence_claims\/0\/record_id$/),
          removed: 'MED:9999',
          reason: 'names no record this review retrieved',
        }),
      ]),
    );
  });
});

describe('a review presents no record it did not verify', () => {
  const records = () => retrieved().map((r) => r.record);
  const index = () => mentionIndex(records());

  it('keeps mentions of retrieved, kept records in every form and removes the rest, listing each', () => {
    const text =
      'Readmissions fell (MED:1004; PMID: 1004; PMC1004; https://europepmc.org/article/MED/1004). ' +
      'A cure was reported (PMID 1001, https://pubmed.ncbi.nlm.nih.gov/1001/) and in MED:1002, ' +
      'and elsewhere [3], [4-6], doi:10.1234/made.up.2019 and https://doi.org/10.5555/ANOTHER.';
    const { text: out, removed } = scrubMentions(text, '/dimensions/0/summary', index());
    expect(out).toContain('(MED:1004; PMID: 1004; PMC1004; https://europepmc.org/article/MED/1004)');
    expect(out).not.toMatch(/1001|1002|\[3\]|\[4-6\]|10\.1234|10\.5555/);
    expect(out.split(REMOVED_MENTION_MARK)).toHaveLength(1 + 7);
    expect(removed.map((r) => r.removed)).toEqual([
      'PMID 1001',
      'https://pubmed.ncbi.nlm.nih.gov/1001/',
      'MED:1002',
      '[3]',
      '[4-6]',
      'doi:10.1234/made.up.2019',
      'https://doi.org/10.5555/ANOTHER',
    ]);
    expect(removed[0]).toMatchObject({ path: '/dimensions/0/summary', reason: expect.stringContaining('retracted_publication') });
    expect(removed[2]!.reason).toContain('retraction_notice');
    expect(removed[3]!.reason).toContain('numbered reference');
    expect(removed[5]!.reason).toBe('names no record this review retrieved');
  });

  it('resolves author-year citations against the authors and year of the records, retracted ones removed', () => {
    const named = records().map((record) =>
      record.record_id === 'MED:1004'
        ? { ...record, authors: 'Okafor N, Lindqvist M.', year: 2020 }
        : record.record_id === 'MED:1001'
          ? { ...record, authors: 'Wakefield A, Roe R.', year: 2018 }
          : record,
    );
    const { text, removed } = scrubMentions(
      'Okafor et al. (2020) saw fewer readmissions (Okafor and Lindqvist, 2020), unlike (Wakefield et al., 2018) and Nguyen (2017); in 2019 nothing changed.',
      '/x',
      mentionIndex(named),
    );
    expect(text).toBe(
      `Okafor et al. (2020) saw fewer readmissions (Okafor and Lindqvist, 2020), unlike ${REMOVED_MENTION_MARK} and ${REMOVED_MENTION_MARK}; in 2019 nothing changed.`,
    );
    expect(removed.map((r) => [r.removed, r.reason.slice(0, 24)])).toEqual([
      ['(Wakefield et al., 2018)', 'names MED:1001, which th'],
      ['Nguyen (2017)', 'names no record this rev'],
    ]);
  });

  it('scrubs every model-written text of an assembled review, even a retracted record the model knows from memory', () => {
    const draft = scriptedDraft();
    const need = draft.dimensions.find((d) => d.id === 'need')!;
    need.summary = 'Strong need (PMID 1004). Telemonitoring cures heart failure (PMID 1001; doi:10.1016/S0140-6736(97)11096-0).';
    need.questions = ['Does MED:1001 replicate?'];
    need.next_experiments = ['Repeat https://doi.org/10.9999/never.retrieved in one practice.'];
    const records = retrieved();
    const prechecked = precheckClaims(draft, records);
    const claims = finalizeClaims(
      prechecked,
      prechecked.filter((c) => c.failed_check === null).map((c) => ({ claim_id: c.claim_id, agrees: true, reason: 'as [12] says' })),
    );
    const plan = planEvaluations({ intake: ideaStageIntake(), intake_revision: 1, credits_per_1k_tokens: 1 });
    const label = { provider: 'openai', model: 'fake', heuristic: false, prompt_id: 'review-draft' };
    const review = assembleConceptReview({
      review_id: 'rev_x',
      project_id: 'proj_x',
      plan_id: 'plan_x',
      plan,
      draft,
      claims,
      retrieved: records,
      query: 'q',
      searched_at: new Date(0).toISOString(),
      drafted_by: label,
      judged_by: label,
    });
    expect(Value.Check(ConceptReview, review)).toBe(true);
    const texts = review.dimensions
      .flatMap((d) => [d.summary, ...d.questions, ...d.next_experiments, ...d.evidence_claims.flatMap((c) => [c.claim, c.judge_reason ?? ''])])
      .join('\n');
    expect(texts).toContain('(PMID 1004)');
    expect(texts).not.toMatch(/1001|10\.1016|10\.9999|\[12\]/);
    const paths = review.removed_mentions!.map((m) => m.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/dimensions/0/summary',
        '/dimensions/0/questions/0',
        '/dimensions/0/next_experiments/0',
        '/dimensions/0/evidence_claims/0/judge_reason',
      ]),
    );
  });
});

describe('the 13 dimensions', () => {
  it('are the eight named by the spec plus five with a framework source each', () => {
    expect(DIMENSIONS).toHaveLength(13);
    expect(DIMENSION_IDS.slice(0, 8)).toEqual(['need', 'users', 'workflow_fit', 'safety_scope', 'equity', 'feasibility', 'adoption', 'evaluation_plan']);
    for (const d of DIMENSIONS.slice(8)) expect(d.source).toMatch(/NICE|DTAC|NASSS/);
  });
});

describe('offline heuristics', () => {
  it('drafts deterministically, quoting sentences verbatim from open texts only, and all pass checks 1 and 2', () => {
    const records = retrieved();
    const intake = ideaStageIntake();
    const draftRecords = records
      .filter((r) => r.record.status === 'included')
      .map((r) => ({
        record_id: r.record.record_id,
        title: r.record.title,
        year: r.record.year,
        journal: r.record.journal,
        text_kind: r.open_text ? ('open_full_text' as const) : ('abstract' as const),
        text: r.open_text ?? r.record.abstract ?? '',
        notes: r.record.notes,
      }));
    const { prompt, records: kept } = buildReviewDraftUserMessage({ intake, records: draftRecords });
    expect(prompt).toContain('<record id="MED:1004" text="open_full_text"');
    expect(prompt).toContain('<record id="MED:1005" text="abstract"');
    const input = { topic: intake.problem!.text, problem: intake.problem!.text, solution: null, stage: 'idea', records: kept };
    const draft = draftReviewOffline(input);
    expect(JSON.stringify(draftReviewOffline(input))).toBe(JSON.stringify(draft));
    expect(Value.Check(ConceptReviewDraft, draft)).toBe(true);
    const claims = draft.dimensions.flatMap((d) => d.evidence_claims);
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.some((c) => c.quote === OPEN_SENTENCE)).toBe(true);
    expect(claims.every((c) => c.record_id !== 'MED:1005')).toBe(true);
    const prechecked = precheckClaims(draft, records);
    expect(prechecked.every((c) => c.failed_check === null)).toBe(true);
    expect(prechecked.every((c) => judgeSupportOffline({ claim: c.claim, quote: c.quote, record_title: '' }).verdict === 'supports')).toBe(true);
  });

  it('sets the topic inside its sentences without doubled punctuation, and counts sentences with proper plurals', () => {
    const problem = 'heart failure patients are readmitted to hospital within 30 days of discharge.';
    const draft = draftReviewOffline({ topic: problem, problem, solution: null, stage: 'idea', records: [] });
    const need = draft.dimensions.find((d) => d.id === 'need')!;
    expect(need.questions[0]).toBe(
      'How many people in the intended setting are affected by the problem (“heart failure patients are readmitted to hospital within 30 days of discharge”), and how often?',
    );
    expect(need.summary).toMatch(/^Heuristic draft \(no AI model\) about the problem \(“heart failure [^”]*discharge”\), at the idea stage: is there/);
    const texts = draft.dimensions.flatMap((d) => [d.summary, ...d.questions, ...d.next_experiments]);
    expect(texts.filter((text) => /[.!?][,.;:]|\(s\)|\{topic\}/.test(text))).toEqual([]);
    expect(topicWords({ topic: 'A remote monitoring app!  ', problem: null }, 120)).toBe('the idea (“A remote monitoring app”)');
    expect(sentencesFound(1, 'need')).toBe('1 sentence from openly licensed records mentions need terms; read it as a lead to test, not a finding.');
    expect(sentencesFound(2, 'need')).toBe('2 sentences from openly licensed records mention need terms; read them as leads to test, not findings.');
  });

  it('judges support by word overlap', () => {
    expect(
      judgeSupportOffline({ claim: 'Monitoring reduced readmissions', quote: 'Remote monitoring reduced readmissions by 20 percent', record_title: 't' })
        .verdict,
    ).toBe('supports');
    const no = judgeSupportOffline({ claim: 'The app doubles revenue for clinics', quote: 'Remote monitoring reduced readmissions', record_title: 't' });
    expect(no.verdict).toBe('does_not_support');
    expect(no.reason).toMatch(/not AI/);
  });
});

describe('prompts', () => {
  it('keep the drafting and judging requests inside their limits', () => {
    const long = { record_id: 'MED:1', title: 'T', year: 2020, journal: null, text_kind: 'open_full_text' as const, text: 'word '.repeat(5000), notes: [] };
    const { prompt, records } = buildReviewDraftUserMessage({
      intake: ideaStageIntake(),
      records: Array.from({ length: 60 }, (_, i) => ({ ...long, record_id: `MED:${i}` })),
    });
    expect(utf8Bytes(reviewDraftSystem()) + utf8Bytes(prompt)).toBeLessThanOrEqual(DRAFT_PROMPT_BYTES_MAX);
    expect(records.length).toBeLessThan(60);
    const judge = buildReviewJudgeUserMessage({ claim: 'c'.repeat(5000), quote: 'q'.repeat(5000), record_title: 't' });
    expect(utf8Bytes(reviewJudgeSystem()) + utf8Bytes(judge)).toBeLessThanOrEqual(JUDGE_PROMPT_BYTES_MAX);
  });
});

describe('review states', () => {
  it('move forward through searching, drafting and verifying, and never leave a finished state', () => {
    expect(canMoveReview('queued', 'searching')).toBe(true);
    expect(canMoveReview('searching', 'drafting')).toBe(true);
    expect(canMoveReview('drafting', 'verifying')).toBe(true);
    expect(canMoveReview('verifying', 'succeeded')).toBe(true);
    expect(canMoveReview('queued', 'succeeded')).toBe(false);
    expect(canMoveReview('drafting', 'searching')).toBe(false);
    for (const from of FINISHED_REVIEW_STATES) for (const to of REVIEW_STATES) expect(canMoveReview(from, to)).toBe(false);
  });

  it('keeps a long non-Latin intake and non-Latin records inside the byte budget the reservation counts', () => {
    const intake = ideaStageIntake();
    const cjk = '心不全の患者は退院後三十日以内に再入院する。'.repeat(4000); // 3 bytes per character
    const tamil = 'இதய செயலிழப்பு நோயாளிகள் மீண்டும் மருத்துவமனையில் அனுமதிக்கப்படுகிறார்கள் '.repeat(200);
    const long = { ...intake, problem: said(cjk), proposed_solution: said(cjk.slice(0, 20_000)) };
    const record = { record_id: 'MED:1', title: 'タイトル', year: 2020, journal: null, text_kind: 'open_full_text' as const, text: tamil, notes: [] };
    const { prompt } = buildReviewDraftUserMessage({ intake: long, records: Array.from({ length: 30 }, (_, i) => ({ ...record, record_id: `MED:${i}` })) });
    const input_bytes = utf8Bytes(reviewDraftSystem()) + utf8Bytes(prompt);
    expect(input_bytes).toBeLessThanOrEqual(DRAFT_PROMPT_BYTES_MAX);
    // One token per UTF-8 byte at most, so the reservation covers the drafting call in any script.
    expect(input_bytes).toBeLessThanOrEqual(reviewTokenEstimate().draft_tokens);
    const judge = buildReviewJudgeUserMessage({ claim: cjk.slice(0, 3000), quote: tamil, record_title: 'タイトル' });
    expect(utf8Bytes(reviewJudgeSystem()) + utf8Bytes(judge)).toBeLessThanOrEqual(JUDGE_PROMPT_BYTES_MAX);
    expect(clipUtf8('é'.repeat(10), 5)).toBe('éé'); // never half a character
  });
});
