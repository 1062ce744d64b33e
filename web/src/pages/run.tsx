// A world run (spec: WorldSpec and run): progress while it works, then its results as charts — each measure's mean
// and 95% interval per variant, paired differences with their intervals, the cost scenarios low/base/high (an
// undefined total is explained), and the event trace, paged. Everything here is synthetic: it describes the model.
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, ErrorBar, Legend, ReferenceLine, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import { type Comparison, type MetricComparison, type MetricSummary, type Run, type RunEvents, type RunExport, type RunResults, TERMINAL_RUN, api } from '../api.ts';
import { Action, ErrorBanner, Link, Pager, Status, formatNumber, useAction, useLoad } from '../ui.tsx';

const EVENTS_PAGE_LIMIT = 50;
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed'];

function MeansChart({ measure, rows }: { measure: string; rows: MetricSummary[] }) {
  const data = rows.map((m) => ({
    variant: m.variant_id,
    mean: m.mean,
    error: m.mean !== null && m.interval_95.low !== null && m.interval_95.high !== null ? [m.mean - m.interval_95.low, m.interval_95.high - m.mean] : [0, 0],
  }));
  const unit = rows[0]?.unit ?? '';
  return (
    <figure className="chart" data-testid="means-chart">
      <figcaption>
        <strong>{measure.replaceAll('_', ' ')}</strong> <span className="muted small">mean per variant with 95% interval ({unit})</span>
      </figcaption>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={data} margin={{ top: 10, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="variant" />
          <YAxis />
          <Tooltip formatter={(value) => formatNumber(Number(value))} />
          <Bar dataKey="mean" fill={COLORS[0]} isAnimationActive={false}>
            <ErrorBar dataKey="error" width={8} stroke="#111" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <table className="small">
        <caption className="visually-hidden">{measure} means</caption>
        <thead>
          <tr>
            <th>Variant</th>
            <th>n</th>
            <th>Mean</th>
            <th>95% interval</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((m) => (
            <tr key={m.variant_id}>
              <td>{m.variant_id}</td>
              <td>{m.n}</td>
              <td>{formatNumber(m.mean)}</td>
              <td>
                {formatNumber(m.interval_95.low)} to {formatNumber(m.interval_95.high)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** One chart per measure: each difference on its own axis and unit, with its interval and the zero line. */
function DifferenceChart({ metric }: { metric: MetricComparison }) {
  const m = metric;
  const data =
    m.mean_difference === null
      ? []
      : [
          {
            pair: `${m.treatment_variant_id} − ${m.baseline_variant_id}`,
            difference: m.mean_difference,
            error: m.interval_95.low !== null && m.interval_95.high !== null ? [m.mean_difference - m.interval_95.low, m.interval_95.high - m.mean_difference] : [0, 0],
          },
        ];
  return (
    <figure className="chart" data-testid="differences-chart">
      <figcaption>
        <strong>{m.measure_id.replaceAll('_', ' ')}</strong>{' '}
        <span className="muted small">
          {m.treatment_variant_id} minus {m.baseline_variant_id}: {formatNumber(m.mean_difference)} {m.unit}, 95% interval {formatNumber(m.interval_95.low)} to{' '}
          {formatNumber(m.interval_95.high)} ({m.n_pairs} pairs)
        </span>
      </figcaption>
      {data.length > 0 ? (
        <ResponsiveContainer width="100%" height={110}>
          <ScatterChart layout="vertical" margin={{ top: 8, right: 24, bottom: 4, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" dataKey="difference" name="difference" domain={['auto', 'auto']} />
            <YAxis type="category" dataKey="pair" width={150} tick={{ fontSize: 11 }} />
            <ReferenceLine x={0} stroke="#555" />
            <Tooltip formatter={(value) => formatNumber(Number(value))} />
            <Scatter data={data} fill={COLORS[1]} isAnimationActive={false}>
              <ErrorBar dataKey="error" direction="x" width={8} stroke="#111" />
            </Scatter>
          </ScatterChart>
        </ResponsiveContainer>
      ) : (
        <p className="muted">undefined: no replication has a value for both variants</p>
      )}
    </figure>
  );
}

function DifferencesCharts({ metrics }: { metrics: MetricComparison[] }) {
  return (
    <>
      <p className="muted small">Treatment minus baseline, paired replication by replication (common random numbers), with 95% intervals.</p>
      <div className="charts">
        {metrics.map((m) => (
          <DifferenceChart key={`${m.measure_id}-${m.treatment_variant_id}-${m.baseline_variant_id}`} metric={m} />
        ))}
      </div>
    </>
  );
}

function CostChart({ results }: { results: RunResults }) {
  const report = results.cost_report;
  if (!report) return <p className="muted">This world has no cost scenarios.</p>;
  const data = report.variants.map((v) => ({ variant: v.variant_id, low: v.total.low, base: v.total.base, high: v.total.high }));
  return (
    <figure className="chart" data-testid="cost-chart">
      <figcaption>
        <strong>Cost scenarios</strong>{' '}
        <span className="muted small">
          total per variant, low / base / high ({report.currency}; {report.basis})
        </span>
      </figcaption>
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data} margin={{ top: 10, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="variant" />
          <YAxis />
          <Tooltip formatter={(value) => formatNumber(Number(value))} />
          <Legend />
          <Bar dataKey="low" fill={COLORS[2]} isAnimationActive={false} />
          <Bar dataKey="base" fill={COLORS[0]} isAnimationActive={false} />
          <Bar dataKey="high" fill={COLORS[3]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      <ul>
        {report.variants.map((v) => (
          <li key={v.variant_id}>
            <strong>{v.variant_id}</strong>: low {formatNumber(v.total.low)}, base {formatNumber(v.total.base)}, high {formatNumber(v.total.high)}
            {v.undefined_reasons.length > 0 && (
              <span className="muted"> — a total is undefined because: {v.undefined_reasons.join('; ')}</span>
            )}
          </li>
        ))}
      </ul>
    </figure>
  );
}

function Events({ run_id }: { run_id: string }) {
  const [offset, setOffset] = useState(0);
  const events = useLoad(
    () => api<RunEvents>('GET', `/v1/runs/${run_id}/events`, { query: { offset, limit: EVENTS_PAGE_LIMIT } }),
    [run_id, offset],
  );
  return (
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Event trace</h2>
      <ErrorBanner error={events.error} />
      {events.value && (
        <>
          <p className="muted small">
            {events.value.description} ({formatNumber(events.value.events_included)} events stored.)
          </p>
          <div className="table-wrap">
            <table className="small">
              <thead>
                <tr>
                  <th>Variant</th>
                  <th>Replication</th>
                  <th>#</th>
                  <th>Time</th>
                  <th>Kind</th>
                  <th>Entity</th>
                  <th>Step</th>
                  <th>Resource</th>
                </tr>
              </thead>
              <tbody>
                {events.value.events.map((e) => (
                  <tr key={`${e.variant_id}-${e.replication_index}-${e.sequence}`}>
                    <td>{e.variant_id}</td>
                    <td>{e.replication_index}</td>
                    <td>{e.sequence}</td>
                    <td>{formatNumber(e.time)}</td>
                    <td>{e.kind}</td>
                    <td>{e.entity ?? ''}</td>
                    <td>{String(e.step ?? '')}</td>
                    <td>{String(e.resource ?? '')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager offset={offset} next={events.value.next_offset} limit={EVENTS_PAGE_LIMIT} onPage={setOffset} />
        </>
      )}
    </section>
  );
}

function Results({ run_id }: { run_id: string }) {
  const results = useLoad(() => api<RunResults>('GET', `/v1/runs/${run_id}/results`), [run_id]);
  const comparison = useLoad(() => api<Comparison>('POST', '/v1/experiments/compare', { body: { run_id } }), [run_id]);
  const exporting = useAction(async () => {
    const link = await api<RunExport>('POST', `/v1/runs/${run_id}/export`);
    window.location.assign(link.url);
  });
  const r = results.value;
  const measures = new Map<string, MetricSummary[]>();
  for (const m of r?.metrics ?? []) measures.set(m.measure_id, [...(measures.get(m.measure_id) ?? []), m]);
  return (
    <>
      <ErrorBanner error={results.error ?? exporting.error} />
      {r && (
        <>
          <p className="disclaimer" role="note">
            Synthetic results: they describe the model under its assumptions, not the world. {r.manifest.replications_completed} replications, seed {r.manifest.seed}.
          </p>
          <Action onPress={() => void exporting.run()} isDisabled={exporting.pending}>
            Export ZIP
          </Action>
          <h2>Measures</h2>
          <div className="charts">
            {[...measures].map(([measure, rows]) => (
              <MeansChart key={measure} measure={measure} rows={rows} />
            ))}
          </div>
          <h2>Differences</h2>
          <ErrorBanner error={comparison.error} />
          {comparison.value && (comparison.value.metrics.length ? <DifferencesCharts metrics={comparison.value.metrics} /> : <p className="muted">There is no baseline/treatment pair to compare.</p>)}
          <h2>Costs</h2>
          <CostChart results={r} />
          {r.findings.length > 0 && (
            <>
              <h2>Findings</h2>
              <ul>
                {r.findings.map((f) => (
                  <li key={f.id}>
                    <span className="chip">synthetic</span> {f.sentence}
                  </li>
                ))}
              </ul>
            </>
          )}
          <Events run_id={run_id} />
        </>
      )}
    </>
  );
}

export default function RunPage({ run_id }: { run_id: string }) {
  const run = useLoad(() => api<Run>('GET', `/v1/runs/${run_id}`), [run_id], { ms: 1000, until: (r) => TERMINAL_RUN.includes(r.status) });
  const cancel = useAction(async () => {
    await api('POST', `/v1/runs/${run_id}/cancel`);
    run.reload();
  });
  const r = run.value;
  return (
    <>
      {r && (
        <p className="crumbs">
          <Link to="/">Projects</Link> / <Link to={`/projects/${r.project_id}`}>Project</Link> / <Link to={`/world-revisions/${r.world_revision_id}`}>World</Link> /
        </p>
      )}
      <h1>Run</h1>
      <ErrorBanner error={run.error ?? cancel.error} />
      {r && (
        <div aria-live="polite">
          <p>
            <Status value={r.status} /> {r.stop_reason && <span className="muted">stopped by the {r.stop_reason.replace('_', ' ')} limit</span>}
          </p>
          <label className="progress">
            <span>
              {r.replications_completed} of {r.replications_requested} replications · {formatNumber(r.events_simulated)} events
            </span>
            <progress max={Math.max(1, r.replications_requested)} value={r.replications_completed} />
          </label>
          <p className="muted small">
            Budget {formatNumber(r.budget_limit_credits)} credits · estimate {formatNumber(r.credits_estimate)} · reserved {formatNumber(r.credits_reserved)} · used{' '}
            {r.credits_used === null ? 'not settled yet' : formatNumber(r.credits_used)}
          </p>
          {!TERMINAL_RUN.includes(r.status) && (
            <Action variant="danger" onPress={() => void cancel.run()}>
              Cancel the run
            </Action>
          )}
          {r.error && <ErrorBanner error={new Error(r.error.message)} />}
        </div>
      )}
      {r?.results_available && <Results run_id={run_id} />}
    </>
  );
}
