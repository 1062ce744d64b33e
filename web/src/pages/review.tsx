// A concept and evidence review (spec: ConceptReview): its state while it works, then the 13 dimensions, each an
// ai_hypothesis, with questions, next experiments and evidence claims showing the outcome of each of the three checks.
import { type EvidenceClaim, type Review, TERMINAL_REVIEW, api } from '../api.ts';
import { Action, ErrorBanner, Link, Status, formatNumber, useAction, useLoad } from '../ui.tsx';

const STATES = ['queued', 'searching', 'drafting', 'verifying', 'succeeded'];

function Check({ label, value }: { label: string; value: boolean | null }) {
  const text = value === null ? 'not checked' : value ? 'passed' : 'failed';
  return (
    <li className={`check check-${text.replace(' ', '-')}`}>
      <span aria-hidden="true">{value === null ? '–' : value ? '✓' : '✗'}</span> {label}: {text}
    </li>
  );
}

function Claim({ claim }: { claim: EvidenceClaim }) {
  return (
    <li className="claim" data-testid="claim">
      <p>
        <Status value={claim.supported ? 'supported' : 'not_supported'} /> {claim.claim}
      </p>
      {claim.quote && <blockquote>“{claim.quote}”</blockquote>}
      <p className="muted small">{claim.record_id ? `Cited record ${claim.record_id}` : 'The cited record was excluded; it is not evidence.'}</p>
      <ul className="checks-list" aria-label="The three checks">
        <Check label="1. record retrieved" value={claim.checks.record_retrieved} />
        <Check label="2. quote found in the text" value={claim.checks.quote_found} />
        <Check label="3. second reader agrees" value={claim.checks.judge_agrees} />
      </ul>
      {claim.failed_check && <p className="muted small">Failed check: {claim.failed_check.replaceAll('_', ' ')}</p>}
      {claim.judge_reason && <p className="muted small">{claim.judge_reason}</p>}
    </li>
  );
}

export function ReviewPage({ review_id }: { review_id: string }) {
  const review = useLoad(() => api<Review>('GET', `/v1/reviews/${review_id}`), [review_id], { ms: 1000, until: (r) => TERMINAL_REVIEW.includes(r.status) });
  const cancel = useAction(async () => {
    await api('POST', `/v1/reviews/${review_id}/cancel`);
    review.reload();
  });
  const r = review.value;
  const doc = r?.review;
  return (
    <>
      {r && (
        <p className="crumbs">
          <Link to="/">Projects</Link> / <Link to={`/projects/${r.project_id}`}>Project</Link> / <Link to={`/projects/${r.project_id}/plans/${r.plan_id}`}>Plan</Link> /
        </p>
      )}
      <h1>Concept and evidence review</h1>
      <ErrorBanner error={review.error ?? cancel.error} />
      {r && (
        <>
          <div aria-live="polite">
            <ol className="steps" aria-label="Review progress">
              {STATES.map((s) => (
                <li key={s} className={s === r.status ? 'current' : STATES.indexOf(s) < STATES.indexOf(r.status) ? 'done' : ''}>
                  {s}
                </li>
              ))}
            </ol>
            <p>
              <Status value={r.status} /> {r.status_description}
            </p>
          </div>
          {!TERMINAL_REVIEW.includes(r.status) && (
            <>
              <p className="muted">This takes a little while; you can leave this page and come back.</p>
              <Action variant="danger" onPress={() => void cancel.run()}>
                Cancel the review
              </Action>
            </>
          )}
          {r.failure && <ErrorBanner error={new Error(r.failure.message)} />}
        </>
      )}
      {doc && (
        <>
          <div className="disclaimer" role="note" data-testid="disclaimer">
            <p>
              <strong>{doc.disclaimer}</strong>
            </p>
            <ul>
              {doc.limitations.map((l) => (
                <li key={l}>{l}</li>
              ))}
            </ul>
          </div>
          <p>
            Drafted by {doc.drafted_by.provider}
            {doc.drafted_by.heuristic ? ' (a deterministic heuristic, not AI)' : ` ${doc.drafted_by.model}`}. {formatNumber(doc.evidence_summary.claims_supported)} of{' '}
            {formatNumber(doc.evidence_summary.claims_total)} evidence claims passed all three checks.
          </p>
          <a className="button secondary" href={`/v1/reviews/${review_id}/download`} download>
            Download the review (JSON)
          </a>
          <h2>Dimensions</h2>
          {doc.dimensions.map((d) => (
            <details key={d.id} className="dimension" data-testid="dimension" open={d.evidence_claims.length > 0}>
              <summary>
                <span>{d.name}</span> <span className="chip">{d.label}</span>
              </summary>
              <p>{d.summary}</p>
              <p className="muted small">Framework: {d.source}</p>
              {d.questions.length > 0 && (
                <>
                  <h3>Questions</h3>
                  <ul>
                    {d.questions.map((q) => (
                      <li key={q}>{q}</li>
                    ))}
                  </ul>
                </>
              )}
              {d.next_experiments.length > 0 && (
                <>
                  <h3>Next experiments</h3>
                  <ul>
                    {d.next_experiments.map((q) => (
                      <li key={q}>{q}</li>
                    ))}
                  </ul>
                </>
              )}
              {d.evidence_claims.length > 0 && (
                <>
                  <h3>Evidence claims</h3>
                  <ul className="claims">
                    {d.evidence_claims.map((c) => (
                      <Claim key={c.claim_id} claim={c} />
                    ))}
                  </ul>
                </>
              )}
            </details>
          ))}
          <h2>Literature</h2>
          <p className="muted">
            Europe PMC, query <code>{doc.literature.query}</code>: {doc.literature.records_retrieved} records retrieved, {doc.literature.records_excluded} excluded.
          </p>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Record</th>
                  <th>Title</th>
                  <th>Status</th>
                  <th>Reason</th>
                </tr>
              </thead>
              <tbody>
                {doc.literature.records.map((rec) => (
                  <tr key={rec.record_id} data-testid={rec.status === 'excluded' ? 'excluded-record' : 'record'}>
                    <td>
                      <a href={rec.url} target="_blank" rel="noreferrer">
                        {rec.record_id}
                      </a>
                    </td>
                    <td>
                      {rec.title} {rec.year && <span className="muted small">({rec.year})</span>}
                    </td>
                    <td>
                      <Status value={rec.status} />
                    </td>
                    <td>{rec.exclusion_reason ? rec.exclusion_reason.replaceAll('_', ' ') : rec.notes.join('; ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
