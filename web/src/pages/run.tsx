// A world run (spec: WorldSpec and run): progress while it works, then its results in plain language. Each measure
// has its own section: what the comparison with the baseline means, in a sentence with its 95% interval, then
// each variant's mean and interval, both drawn as range plots; then the costs (low, base and high per variant, with
// why a total is not known), and the event trace of the first repetition (people numbered by arrival, clock times,
// resources by label). Variants and measures are named by their labels, numbers carry their natural unit
// (clients/sdk/src/words/resultWords.ts, shared with the export's report). Everything here is synthetic: it describes the model.
import { useState } from 'react';
import { client, unwrap } from '../client.ts';
import { TERMINAL_RUN, type CostReport, type MetricComparison, type MetricSummary, type Run, type RunEvents } from '../types.ts';
import { failureSentence } from '../../../clients/sdk/src/words/index.ts';
import { TechnicalDetails } from '../technical.tsx';
import { Action, Link, Pager, formatDate, inSentence, useAction, useBalanceChangedOn, useLoad } from '../ui.tsx';
import {
  type MeasureForWords,
  type Scale,
  type TimeUnitWords,
  axisWords,
  clockWords,
  comparisonSentence,
  meanParts,
  measureScale,
  personWords,
  resourceWords,
  stepWords,
  scaleWords,
  timeUnitFor,
  unfinishedWords,
} from '../../../clients/sdk/src/words/index.ts';
import { shownInterval } from '../../../clients/sdk/src/words/index.ts';
import { type World, formatCurrency, formatNumber, humanize, isWorld, measureName, plainText, repetitionsWords, variantName } from '../world/model.ts';
import { PlainError } from '../world/plainError.tsx';
import { RangePlot } from '../world/rangePlot.tsx';
import '../world/world.css';

const EVENTS_PAGE_LIMIT = 50;

const STATUS_WORDS: Record<string, string> = {
  queued: 'Waiting to start',
  running: 'Running',
  succeeded: 'Finished',
  timed_out: 'Stopped at its time limit',
  canceled: 'Canceled',
  failed: 'Failed',
};

/** What one comparison means in the model and how sure it is, as a sentence (the interval decides "clear"). */
function ComparisonLine({ world, measure, scale, metric }: { world: World | undefined; measure: MeasureForWords; scale: Scale; metric: MetricComparison }) {
  const sentence = comparisonSentence(variantName(world, metric.treatment_variant_id), variantName(world, metric.baseline_variant_id), measure, scale, metric);
  return (
    <p className="comparison" data-testid="what-this-means">
      <strong>What this means:</strong> {sentence}
    </p>
  );
}

const censored = (summary: MetricSummary) => summary.censored_count ?? 0;

/** A variant's mean in its unit, its interval kept within what the quantity can be (with the reason when cut), and what it averages over. */
function VariantMean({
  world,
  measure,
  scale,
  shownTime,
  summary,
}: {
  world: World | undefined;
  measure: MeasureForWords;
  scale: Scale;
  shownTime: TimeUnitWords;
  summary: MetricSummary;
}) {
  const parts = meanParts(summary, scale, shownTime);
  const repetitions = summary.n + (summary.replications_without_value ?? 0);
  const censoring = world?.measured.find((m) => m.id === measure.id)?.censoring;
  return (
    <li data-testid="variant-mean">
      {variantName(world, summary.variant_id)}: <strong>{parts.value}</strong> {parts.qualifier} ({parts.interval}, {parts.repetitions}
      {parts.clipped && <span data-testid="few-repetitions">: {parts.note}</span>})
      {censored(summary) > 0 && (
        <span className="muted" data-testid="unfinished">
          . {unfinishedWords(censored(summary), repetitions, typeof censoring === 'string' ? censoring : undefined)}
        </span>
      )}
    </li>
  );
}

function MeasureSection({
  world,
  measure_id,
  rows,
  comparisons,
}: {
  world: World | undefined;
  measure_id: string;
  rows: MetricSummary[];
  comparisons: MetricComparison[];
}) {
  const unit = rows[0]?.unit ?? comparisons[0]?.unit ?? '';
  const measure: MeasureForWords = world?.measured.find((m) => m.id === measure_id) ?? { id: measure_id, kind: rows[0]?.kind ?? '', unit };
  const scale = measureScale(world, measure);
  const shownTime = timeUnitFor(
    rows.map((m) => m.mean),
    unit,
  );
  const differenceTime = timeUnitFor(
    comparisons.flatMap((m) => [m.mean_difference, m.interval_95.low, m.interval_95.high]),
    unit,
  );
  const name = measureName(world, measure_id);
  return (
    <section className="measure" aria-labelledby={`measure-${measure_id}`} data-testid="measure">
      <h3 id={`measure-${measure_id}`}>
        {name} <span className="muted small">({scaleWords(scale, shownTime)})</span>
      </h3>
      {comparisons.map((metric) => (
        <ComparisonLine key={metric.treatment_variant_id} world={world} measure={measure} scale={scale} metric={metric} />
      ))}
      {comparisons.length > 0 && (
        <figure className="chart" data-testid="differences-chart">
          <figcaption className="small muted">
            Difference from {inSentence(variantName(world, comparisons[0]!.baseline_variant_id))}: dot the mean, bar the 95% interval; the dark line is no
            difference.
          </figcaption>
          <RangePlot
            label={`${name}: difference from the baseline with 95% intervals`}
            zero
            rows={comparisons.map((m) => ({
              label: variantName(world, m.treatment_variant_id),
              value: m.mean_difference,
              low: m.interval_95.low,
              high: m.interval_95.high,
            }))}
            format={(v) => axisWords(v, unit, scale, { difference: true, shownTime: differenceTime })}
          />
        </figure>
      )}
      <ul className="variant-means">
        {rows.map((m) => (
          <VariantMean key={m.variant_id} world={world} measure={measure} scale={scale} shownTime={shownTime} summary={m} />
        ))}
      </ul>
      <figure className="chart" data-testid="means-chart">
        <figcaption className="small muted">Each variant: dot the mean, bar the 95% interval.</figcaption>
        <RangePlot
          label={`${name} for each variant with 95% intervals`}
          rows={rows.map((m) => ({
            label: variantName(world, m.variant_id),
            value: m.mean,
            ...shownInterval(m.interval_95.low, m.interval_95.high, scale === 'share_of_arrivals' ? 'count' : m.unit),
          }))}
          format={(v) => axisWords(v, unit, scale, { shownTime })}
        />
      </figure>
    </section>
  );
}

function Costs({ world, report }: { world: World | undefined; report: CostReport | null }) {
  if (!report) return <p className="muted">This world has no costs attached.</p>;
  const money = (v: number | null) => formatCurrency(v, report.currency);
  return (
    <>
      <p>Modelled cost of each variant over the measured period of one repetition: the base estimate, and the range from the low to the high prices.</p>
      <figure className="chart" data-testid="cost-chart">
        <figcaption className="small muted">Dot the base cost, bar from the low to the high cost ({report.currency}).</figcaption>
        <RangePlot
          label="Modelled cost of each variant, low to high"
          rows={report.variants.map((v) => ({ label: variantName(world, v.variant_id), value: v.total.base, low: v.total.low, high: v.total.high }))}
          format={money}
        />
      </figure>
      <div className="table-wrap">
        <table className="small">
          <caption className="visually-hidden">Modelled costs per variant</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Low</th>
              <th scope="col">Base</th>
              <th scope="col">High</th>
            </tr>
          </thead>
          <tbody>
            {report.variants.map((v) => (
              <tr key={v.variant_id}>
                <th scope="row">{variantName(world, v.variant_id)}</th>
                <td>{money(v.total.low)}</td>
                <td>{money(v.total.base)}</td>
                <td>{money(v.total.high)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.variants
        .filter((v) => v.undefined_reasons.length > 0)
        .map((v) => (
          <p key={v.variant_id} className="warning">
            The cost of {inSentence(variantName(world, v.variant_id))} is not known at every level:{' '}
            {v.undefined_reasons.map((r) => plainText(r, world ?? null)).join('; ')}.
          </p>
        ))}
    </>
  );
}

const EVENT_WORDS: Record<string, string> = {
  arrival: 'arrives',
  enter: 'enters',
  queue: 'waits',
  start: 'starts',
  end: 'finishes',
  renege: 'gives up waiting',
  leave: 'leaves',
  capacity: 'capacity changes',
};

/** What happened, with the number the event carries: how many are waiting once this person joins the queue, the new capacity. */
function eventWords(event: RunEvents['events'][number]): string {
  if (event.kind === 'queue' && event.value !== null) return `waits (${formatNumber(event.value)} waiting)`;
  if (event.kind === 'capacity' && event.value !== null) return `capacity changes to ${formatNumber(event.value)}`;
  return EVENT_WORDS[event.kind] ?? humanize(event.kind);
}

function Events({ run_id, world }: { run_id: string; world: World | undefined }) {
  const [offset, setOffset] = useState(0);
  const events = useLoad(
    () => client.GET('/v1/runs/{run_id}/events', { path: { run_id }, query: { offset, limit: EVENTS_PAGE_LIMIT } }).then(unwrap),
    [run_id, offset],
  );
  return (
    <details className="events" data-testid="events">
      <summary>Event by event: the first repetition of each variant</summary>
      <PlainError error={events.error} />
      {events.value && (
        <>
          <p className="muted small">
            {formatNumber(events.value.events_included)} events are kept, so the model's steps can be followed one by one. People are numbered in the order they
            arrive in the repetition; times are clock times from the start of the simulated period (day 1).
          </p>
          <div className="table-wrap">
            <table className="small">
              <thead>
                <tr>
                  <th scope="col">Variant</th>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">Where</th>
                </tr>
              </thead>
              <tbody>
                {events.value.events.map((e) => (
                  <tr key={`${e.variant_id}-${e.replication_index}-${e.sequence}`}>
                    <td>{variantName(world, e.variant_id)}</td>
                    <td>{world ? clockWords(e.time, world) : formatNumber(e.time)}</td>
                    <td>{personWords(e.entity)}</td>
                    <td>{eventWords(e)}</td>
                    <td>{[stepWords(world, e.step), resourceWords(world, e.resource)].filter(Boolean).join(' · ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager offset={offset} next={events.value.next_offset} limit={EVENTS_PAGE_LIMIT} onPage={setOffset} />
        </>
      )}
    </details>
  );
}

function Results({ run_id, world }: { run_id: string; world: World | undefined }) {
  const results = useLoad(() => client.GET('/v1/runs/{run_id}/results', { path: { run_id } }).then(unwrap), [run_id]);
  const comparison = useLoad(() => client.POST('/v1/experiments/compare', { body: { run_id } }).then(unwrap), [run_id]);
  const exporting = useAction(async () => {
    const link = await client.POST('/v1/runs/{run_id}/export', { path: { run_id } }).then(unwrap);
    window.location.assign(link.url);
  });
  const r = results.value;
  const order = world?.measured.map((m) => m.id) ?? [];
  const measures = new Map<string, MetricSummary[]>(order.map((id) => [id, []]));
  for (const m of r?.metrics ?? []) measures.set(m.measure_id, [...(measures.get(m.measure_id) ?? []), m]);
  return (
    <>
      <PlainError error={results.error ?? comparison.error ?? exporting.error} />
      {r && (
        <>
          <p className="disclaimer" role="note">
            Synthetic results: they describe the model under its assumptions, not patients or services.
          </p>
          <Action onPress={() => void exporting.run()} isDisabled={exporting.pending}>
            Download all results (ZIP)
          </Action>
          <h2>Results by measure</h2>
          {[...measures].map(([measure_id, rows]) =>
            rows.length ? (
              <MeasureSection
                key={measure_id}
                world={world}
                measure_id={measure_id}
                rows={rows}
                comparisons={(comparison.value?.metrics ?? []).filter((c) => c.measure_id === measure_id)}
              />
            ) : null,
          )}
          <h2>Costs</h2>
          <Costs world={world} report={r.cost_report} />
          <Events run_id={run_id} world={world} />
        </>
      )}
    </>
  );
}

const credits = (n: number) => `${formatNumber(n)} credit${n === 1 ? '' : 's'}`;

function Progress({ run, variants }: { run: Run; variants: number }) {
  return (
    <div aria-live="polite">
      <p>
        <span className={`status status-${run.status}`}>{STATUS_WORDS[run.status] ?? humanize(run.status)}</span>{' '}
        {run.stop_reason && (
          <span className="muted">
            stopped early: it reached its {run.stop_reason === 'budget' ? 'credit budget' : 'time limit'}, and the results cover the repetitions finished
          </span>
        )}
      </p>
      <label className="progress">
        <span>
          <span data-testid="repetitions">{repetitionsWords(run.replications_completed, run.replications_requested, variants)}</span> ·{' '}
          {formatNumber(run.events_simulated)} simulated events
        </span>
        <progress max={Math.max(1, run.replications_requested)} value={run.replications_completed} />
      </label>
      <p className="muted small">
        Budget: up to {credits(run.budget_limit_credits)}, charged at actual use. Estimated at {credits(run.credits_estimate)}; {credits(run.credits_reserved)}{' '}
        held while it runs; {run.credits_used === null ? 'the charge is settled when it ends.' : `charged ${credits(run.credits_used)}.`}
      </p>
    </div>
  );
}

export default function RunPage({ run_id }: { run_id: string }) {
  const run = useLoad(() => client.GET('/v1/runs/{run_id}', { path: { run_id } }).then(unwrap), [run_id], {
    ms: 1000,
    until: (r) => TERMINAL_RUN.includes(r.status),
  });
  const r = run.value;
  // a run holds credits while it works and is charged when it ends: the header's balance follows
  useBalanceChangedOn(r?.status);
  const revision = useLoad(
    async () => (r ? client.GET('/v1/world-revisions/{world_revision_id}', { path: { world_revision_id: r.world_revision_id } }).then(unwrap) : null),
    [r?.world_revision_id],
  );
  const world = revision.value && isWorld(revision.value.world) ? revision.value.world : undefined;
  const cancel = useAction(async () => {
    await client.POST('/v1/runs/{run_id}/cancel', { path: { run_id } }).then(unwrap);
    run.reload();
  });
  return (
    <>
      <h1>{world ? `Simulation: ${world.name}` : 'Simulation'}</h1>
      <PlainError error={run.error ?? cancel.error ?? revision.error} />
      {r && <Progress run={r} variants={world?.variants.length ?? 0} />}
      {r && !TERMINAL_RUN.includes(r.status) && (
        <Action variant="danger" onPress={() => void cancel.run()}>
          Cancel the run
        </Action>
      )}
      {r?.failure && (
        <p className="error">
          The run failed: {inSentence(failureSentence(r.failure.code) ?? plainText(r.failure.message, world ?? null))}{' '}
          {r.status === 'failed' && <Link to={`/projects/${r.project_id}`}>Back to the project to try again</Link>}
        </p>
      )}
      {r?.results_available && <Results run_id={run_id} world={world} />}
      {r && (
        <TechnicalDetails>
          <p>
            Run {r.run_id} of world revision {r.world_revision_id}; status {r.status}; created {formatDate(r.created_at)} by {r.created_by}.
          </p>
          {r.failure && (
            <p>
              {r.failure.code}: {r.failure.message}
            </p>
          )}
        </TechnicalDetails>
      )}
    </>
  );
}
