// A concept and evidence review (spec: ConceptReview) as a document a person can read: its state in words
// while it works, then the 13 dimensions (each an AI hypothesis) with questions, next experiments and evidence claims,
// each claim's three checks as plain badges with a sentence and the paper it cites by title, journal and year; the
// papers found, and the excluded ones with the reason in words. Record ids and the raw query sit in Technical details.
import type { ReactNode } from 'react';
import { client, unwrap } from '../client.ts';
import { TERMINAL_REVIEW, type ConceptReview, type EvidenceClaim, type Review } from '../types.ts';
import { stepEndInWords } from '../../../clients/sdk/src/words/index.ts';
import { TechnicalDetails } from '../technical.tsx';
import { Action, ErrorBanner, Link, formatDate, formatNumber, plainText, useAction, useBalanceChangedOn, useLoad } from '../ui.tsx';

const STATES = ['queued', 'searching', 'drafting', 'verifying', 'succeeded'];
const STATE_NAMES: Record<string, string> = { queued: 'Waiting', searching: 'Searching', drafting: 'Drafting', verifying: 'Checking', succeeded: 'Done' };

type Records = ConceptReview['literature']['records'];
type LitRecord = Records[number];

function Badge({ ok, children }: { ok: boolean | null; children: ReactNode }) {
  const kind = ok === null ? 'not-checked' : ok ? 'passed' : 'failed';
  return (
    <li className={`badge badge-${kind}`}>
      <span aria-hidden="true">{ok === null ? '–' : ok ? '✓' : '✗'}</span> {children}
    </li>
  );
}

/** `reader`: who the second reader was, in words ("AI reading", or the offline provider's word-overlap check). */
function Checks({ claim, reader }: { claim: EvidenceClaim; reader: string }) {
  const c = claim.checks;
  return (
    <ul className="badges" aria-label="The three checks">
      <Badge ok={c.record_retrieved}>
        <strong>{c.record_retrieved ? 'Paper found' : 'Paper not found'}</strong>:{' '}
        {c.record_retrieved ? 'the cited paper is one this review retrieved and kept.' : 'the cited paper was not retrieved, or was excluded.'}
      </Badge>
      <Badge ok={c.quote_found}>
        <strong>{c.quote_found === null ? 'Quote not checked' : c.quote_found ? 'Quote found' : 'Quote not found'}</strong>:{' '}
        {c.quote_found === null
          ? 'the paper’s full text is not openly available to check the quote against.'
          : c.quote_found
            ? 'the quoted words are in the paper’s open full text.'
            : 'the quoted words are not in the paper’s text.'}
      </Badge>
      <Badge ok={c.judge_agrees}>
        <strong>{c.judge_agrees === null ? 'Second reader not asked' : c.judge_agrees ? 'Second reader agrees' : 'Second reader disagrees'}</strong>:{' '}
        {c.judge_agrees === null
          ? 'an earlier check failed, so no second reading was made.'
          : c.judge_agrees
            ? `a second, separate ${reader} agrees the quote supports the claim.`
            : `a second, separate ${reader} finds the quote does not support the claim.`}
      </Badge>
    </ul>
  );
}

function Paper({ record }: { record: LitRecord }) {
  return (
    <>
      <a href={record.url} target="_blank" rel="noreferrer">
        {record.title}
      </a>
      <span className="muted small">
        {' '}
        {[record.journal, record.year].filter(Boolean).join(', ')}
        {record.authors ? ` · ${record.authors}` : ''}
      </span>
    </>
  );
}

function Claim({ claim, records, reader }: { claim: EvidenceClaim; records: Records; reader: string }) {
  const record = records.find((r) => r.record_id === claim.record_id);
  return (
    <li className="claim" data-testid="claim">
      <p>
        <span className={`status status-${claim.supported ? 'supported' : 'not_supported'}`}>{claim.supported ? 'supported' : 'not supported'}</span>{' '}
        {claim.claim}
      </p>
      {claim.quote && <blockquote>“{claim.quote}”</blockquote>}
      <p className="small">{record ? <Paper record={record} /> : 'The paper it cited was excluded, so it is not evidence.'}</p>
      <Checks claim={claim} reader={reader} />
      {claim.judge_reason && <p className="muted small">Second reader: {plainText(claim.judge_reason)}</p>}
    </li>
  );
}

const EXCLUSIONS: Record<string, string> = {
  retracted_publication: 'Retracted by its journal, so it is not used as evidence.',
  retraction_notice: 'A retraction notice, not a study, so it is not used as evidence.',
};

/** A record's note ("correction published: …") as a sentence of its own after the full-text sentence. */
const noteSentence = (note: string) => {
  const text = plainText(note);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.?!]$/.test(text) ? '' : '.'}`;
};

function Literature({ doc }: { doc: ConceptReview }) {
  const lit = doc.literature;
  const included = lit.records.filter((r) => r.status === 'included');
  const excluded = lit.records.filter((r) => r.status === 'excluded');
  return (
    <section aria-labelledby="literature-heading">
      <h2 id="literature-heading">Papers found</h2>
      <p className="muted">
        Searched {lit.index} on {formatDate(lit.searched_at)}: {formatNumber(lit.records_retrieved)} papers found, {formatNumber(lit.records_excluded)}{' '}
        excluded.
      </p>
      <ul className="records">
        {included.map((r) => (
          <li key={r.record_id} data-testid="record">
            <Paper record={r} />
            <p className="small muted">
              {r.full_text === 'read'
                ? 'Full text read; quotes were checked against it.'
                : 'Full text not openly available; quotes could not be checked against it.'}
              {r.notes.length > 0 && ` ${r.notes.map(noteSentence).join(' ')}`}
            </p>
          </li>
        ))}
      </ul>
      {excluded.length > 0 && (
        <>
          <h3>Excluded</h3>
          <ul className="records">
            {excluded.map((r) => (
              <li key={r.record_id} data-testid="excluded-record">
                <Paper record={r} />
                <p className="small">{r.exclusion_reason ? EXCLUSIONS[r.exclusion_reason] : 'Excluded.'}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function List({ title, items }: { title: string; items: string[] }) {
  if (items.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul>
        {items.map((q) => (
          <li key={q}>{plainText(q)}</li>
        ))}
      </ul>
    </>
  );
}

function Document({ doc, review_id }: { doc: ConceptReview; review_id: string }) {
  const by = doc.drafted_by.heuristic ? 'the built-in method (no AI)' : `AI (${doc.drafted_by.provider} ${doc.drafted_by.model})`;
  return (
    <>
      <div className="disclaimer" role="note" data-testid="disclaimer">
        <p>
          <strong>{plainText(doc.disclaimer)}</strong>
        </p>
        <ul>
          {doc.limitations.map((l) => (
            <li key={l}>{plainText(l)}</li>
          ))}
        </ul>
      </div>
      <p>
        Drafted by {by}. {formatNumber(doc.evidence_summary.claims_supported)} of {formatNumber(doc.evidence_summary.claims_total)} evidence claims passed all
        three checks. Each dimension below is an AI hypothesis to test, not a finding.
      </p>
      <a className="button secondary" href={`/v1/reviews/${review_id}/download`} download>
        Download the review (JSON)
      </a>
      <h2>Dimensions</h2>
      {doc.dimensions.map((d) => (
        <details key={d.id} className="dimension" data-testid="dimension" open={d.evidence_claims.length > 0}>
          <summary>
            <span>{d.name}</span> <span className="chip">AI hypothesis</span>
          </summary>
          <p>{plainText(d.summary)}</p>
          <p className="muted small">Framework: {plainText(d.source)}</p>
          <List title="Questions" items={d.questions} />
          <List title="Next experiments" items={d.next_experiments} />
          {d.evidence_claims.length > 0 && (
            <>
              <h3>Evidence claims</h3>
              <ul className="claims">
                {d.evidence_claims.map((c) => (
                  <Claim
                    key={c.claim_id}
                    claim={c}
                    records={doc.literature.records}
                    reader={doc.judged_by?.heuristic ? 'reading (the built-in word check, not AI)' : 'AI reading'}
                  />
                ))}
              </ul>
            </>
          )}
        </details>
      ))}
      <Literature doc={doc} />
      {(doc.removed_mentions?.length ?? 0) > 0 && (
        <p className="muted small">
          {doc.removed_mentions!.length} mention{doc.removed_mentions!.length === 1 ? ' was' : 's were'} of papers this review did not retrieve were removed
          from the text.
        </p>
      )}
    </>
  );
}

/** Where the review stands: its steps, its state in words and its credits (reserved while it works, charged once done). */
function ReviewProgress({ r }: { r: Review }) {
  return (
    <div aria-live="polite">
      <ol className="steps" aria-label="Review progress">
        {STATES.map((s) => (
          <li key={s} className={s === r.status ? 'current' : STATES.indexOf(s) < STATES.indexOf(r.status) ? 'done' : ''}>
            {STATE_NAMES[s]}
          </li>
        ))}
      </ol>
      <p data-testid="review-status">
        {r.status_description}{' '}
        {TERMINAL_REVIEW.includes(r.status) ? (
          r.credits_used !== null && <span className="muted small">{formatNumber(r.credits_used)} credits charged.</span>
        ) : (
          <span className="muted small">Up to {formatNumber(r.credits_reserved)} credits reserved, charged at actual use.</span>
        )}
      </p>
    </div>
  );
}

function ReviewTechnical({ r }: { r: Review }) {
  const doc = r.review;
  return (
    <TechnicalDetails>
      <p>
        Review {r.id} · plan {r.plan_id} · status {r.status}
      </p>
      <p>
        {r.usage.calls} AI calls · {formatNumber(r.usage.input_tokens)} input and {formatNumber(r.usage.output_tokens)} output tokens ·{' '}
        {formatNumber(r.credits_reserved)} credits reserved{r.byok_provider ? ` · own key: ${r.byok_provider}` : ''}
      </p>
      {r.failure && (
        <p>
          {r.failure.code}: {r.failure.message}
        </p>
      )}
      {doc && (
        <>
          <p>Query: {doc.literature.query}</p>
          <p>Records: {doc.literature.records.map((x) => `${x.record_id} (${x.status}${x.exclusion_reason ? `: ${x.exclusion_reason}` : ''})`).join(', ')}</p>
          {doc.dimensions.flatMap((d) =>
            d.evidence_claims.map((c) => (
              <p key={c.claim_id}>
                {d.id} {c.claim_id} → {c.record_id ?? 'excluded record'}; failed check: {c.failed_check ?? 'none'}
                {c.note ? `; ${c.note}` : ''}
              </p>
            )),
          )}
          {doc.removed_mentions?.map((m) => (
            <p key={`${m.path}:${m.removed}`}>
              removed {m.removed} at {m.path}: {m.reason}
            </p>
          ))}
        </>
      )}
    </TechnicalDetails>
  );
}

export function ReviewPage({ review_id }: { review_id: string }) {
  const review = useLoad(() => client.GET('/v1/reviews/{review_id}', { path: { review_id } }).then(unwrap), [review_id], {
    ms: 1000,
    until: (r) => TERMINAL_REVIEW.includes(r.status),
  });
  const cancel = useAction(async () => {
    await client.POST('/v1/reviews/{review_id}/cancel', { path: { review_id } }).then(unwrap);
    review.reload();
  });
  const r = review.value;
  // a review holds credits while it works and is charged when it ends: the header's balance follows
  useBalanceChangedOn(r?.status);
  const doc = r?.review;
  return (
    <>
      <h1>Concept and evidence review</h1>
      <ErrorBanner error={review.error ?? cancel.error} />
      {r && (
        <>
          <ReviewProgress r={r} />
          {!TERMINAL_REVIEW.includes(r.status) && (
            <>
              <p className="muted">This takes a few minutes; you can leave this page and come back.</p>
              <Action variant="danger" onPress={() => void cancel.run()}>
                Cancel the review
              </Action>
            </>
          )}
          {r.failure && (
            <div className="error" role="alert">
              <p className="error-message">{stepEndInWords({ status: r.status, failure: r.failure }).sentence}</p>
              <p>
                <Link to={`/projects/${r.project_id}`}>Back to the project to try again</Link>
              </p>
            </div>
          )}
        </>
      )}
      {doc && <Document doc={doc} review_id={review_id} />}
      {r && <ReviewTechnical r={r} />}
    </>
  );
}
