// The model check: what makes a valid world a comparison of nothing, in words (docs/simulation.md, The model check).
// It runs with the run estimate (estimateRun, beside its pilot) and on every authoring checkpoint: a variant that
// changes nothing, a resource busy all the time with a queue growing through the horizon, a duration that is a
// turnaround or a deadline rather than the time the work takes, and a horizon too short for its warm-up. These are
// warnings: a run can still be started, and an authoring session never says the model is complete while one stands.
// Pure.
import type { ModelWarning } from '../contracts/worlds.ts';
import type { Parameter, WorldSpec } from '../contracts/worldSpec.ts';
import { estimateRun, type RunEstimate, saturatedResources } from './estimate.ts';
import { compileModel, STEP_DELAY, STEP_SERVICE, settingValues } from './model.ts';
import { idWords, namesIn } from '../../clients/sdk/src/words/problemWords.ts';
import { validateWorld } from './validate.ts';
import { durationWords } from '../../clients/sdk/src/words/resultWords.ts';
import { figure, settingValueWords } from '../../clients/sdk/src/words/simulationWords.ts';

export type { ModelWarning } from '../contracts/worlds.ts';

/** The measured period (horizon less warm-up) must be at least this many times the warm-up. */
export const WINDOW_PER_WARM_UP_MIN = 1;
/** ... and at least this many times the longest mean time a patient spends at one step. */
export const WINDOW_PER_LONGEST_STEP_MIN = 10;

/**
 * A phrase that states a turnaround or a deadline (“within 48 hours”, “a 2-day turnaround”, “no later than”), or null.
 * Such a time is a promise about when work is done, not the time the work takes: it is no service time.
 */
export function deadlinePhrase(text: string): string | null {
  const match =
    /\b(within|no later than|no more than|up to|by the end of)\s+(?:the\s+)?(?:\d+(?:\.\d+)?|[a-z]+)[\s-]*(?:working\s+)?(minutes?|mins?|hours?|hrs?|days?|weeks?)\b/i.exec(
      text,
    ) ?? /\b(turn[\s-]?around|deadline|target time|time target|response target|same[\s-]day|next[\s-]day)\b/i.exec(text);
  return match ? match[0] : null;
}

/** The run estimate with the model check's warnings beside it (none for a world that does not validate: its problems say enough). */
export function estimateWithModelCheck(world: unknown): RunEstimate & { warnings: ModelWarning[] } {
  const estimate = estimateRun(world);
  return { ...estimate, warnings: validateWorld(world).valid ? modelCheck(world as WorldSpec) : [] };
}

/** Every warning of the model check, in words (names from the world's labels, never ids). */
export function modelCheck(world: WorldSpec): ModelWarning[] {
  return [...variantsChangingNothing(world), ...unstableQueues(world), ...deadlinesAsDurations(world), ...horizonTooShort(world)];
}

/** A figure as people read it, with thousands separators (2,881, not 2881): a whole number exactly, else three significant digits. */
const amount = (value: number) => (Number.isInteger(value) ? value : Number(figure(value))).toLocaleString('en-GB', { maximumFractionDigits: 10 });

const settingName = (world: WorldSpec, name: string) => world.settings[name]?.description ?? idWords(name).toLowerCase();

function variantsChangingNothing(world: WorldSpec): ModelWarning[] {
  const baseline = world.variants.find((variant) => variant.role === 'baseline');
  if (!baseline) return [];
  const base = settingValues(world, baseline.id);
  return world.variants.flatMap((variant, index) => {
    if (variant.role !== 'treatment' || variant.structure) return [];
    const same = variant.changes.filter((change) => base.get(change.setting)?.value === change.value);
    if (same.length < variant.changes.length) return [];
    const what =
      variant.changes.length === 0
        ? 'it sets no value of its own'
        : `it sets ${same.map((change) => `${settingName(world, change.setting)} to ${settingValueWords(change.value, base.get(change.setting)!.unit)}`).join(', ')}, the same as “${baseline.label}”`;
    return [
      {
        kind: 'variant_changes_nothing' as const,
        pointer: `/variants/${index}`,
        message: `“${variant.label}” changes nothing: ${what}, so the comparison can only show no difference. Give it the value it would change to.`,
      },
    ];
  });
}

function unstableQueues(world: WorldSpec): ModelWarning[] {
  const name = namesIn(world);
  const byResource = new Map<string, { variants: string[]; saturated: ReturnType<typeof saturatedResources>[number] }>();
  for (const variant of world.variants) {
    for (const saturated of saturatedResources(world, variant.id)) {
      const known = byResource.get(saturated.resource);
      if (known) known.variants.push(variant.label);
      else byResource.set(saturated.resource, { variants: [variant.label], saturated });
    }
  }
  return [...byResource.values()].map(({ variants, saturated }) => {
    const { load, capacity } = saturated;
    const main = saturated.steps.reduce((best, step) => (step.work > best.work ? step : best));
    const resource = name('resource', saturated.resource);
    const needed = Math.floor(load) + 1;
    // The mean time at the busiest step that brings the offered work below the capacity, when one can.
    const otherWork = load - main.work;
    const shorter = otherWork < capacity ? (main.mean_time * (capacity - otherWork)) / main.work : null;
    const time = (value: number) => durationWords(value, world.time_unit);
    const remedy = `“${resource}” needs at least ${amount(needed)} available at once (it has ${amount(capacity)}${capacity !== Math.round(capacity) ? ' on average' : ''})${
      shorter === null ? '' : ` or a mean time at “${name('step', main.step)}” below ${time(shorter)} (it is ${time(main.mean_time)})`
    }, or less demand`;
    return {
      kind: 'unstable_queue' as const,
      pointer: `/resources/${world.resources.findIndex((candidate) => candidate.id === saturated.resource)}`,
      message: `“${resource}” would be busy all the time at “${name('step', main.step)}” in ${variants.map((label) => `“${label}”`).join(' and ')}: it is given enough work to keep ${amount(load)} busy at once, with ${amount(capacity)} available, so its queue grows through the whole simulated period and waits depend only on how long the run is. To be stable, ${remedy}.`,
    };
  });
}

/** The settings a step's duration (service, delay) or patience reads: a deadline in their source or description is no duration. */
function durationSettings(world: WorldSpec): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown) => {
    if (value && typeof value === 'object') {
      const setting = (value as { setting?: unknown }).setting;
      if (typeof setting === 'string') names.add(setting);
      for (const inner of Object.values(value)) visit(inner);
    }
  };
  for (const step of world.steps) if (step.kind === 'service' || step.kind === 'delay') visit(step.duration as Parameter | object);
  return names;
}

function deadlinesAsDurations(world: WorldSpec): ModelWarning[] {
  const used = durationSettings(world);
  return Object.entries(world.settings).flatMap(([name, setting]) => {
    if (!used.has(name) || !['minutes', 'hours', 'days'].includes(setting.unit)) return [];
    const source = setting.source;
    const texts = [
      setting.description,
      source.kind === 'assumption' ? source.rationale : source.note,
      source.kind === 'literature' ? source.reference : undefined,
    ];
    const phrase = texts.map((text) => (text ? deadlinePhrase(text) : null)).find((found) => found !== null) ?? null;
    if (phrase === null) return [];
    return [
      {
        kind: 'deadline_as_duration' as const,
        pointer: `/settings/${name}`,
        message: `${idWords(settingName(world, name))} (${amount(setting.value)} ${setting.unit}) comes from “${phrase}”: that is a turnaround or a deadline, not the time the work takes. Give the time a patient actually spends at the step, and measure the share over the deadline instead.`,
      },
    ];
  });
}

function horizonTooShort(world: WorldSpec): ModelWarning[] {
  const window = world.horizon - world.warm_up;
  const time = (value: number) => durationWords(value, world.time_unit);
  const out: ModelWarning[] = [];
  if (window < WINDOW_PER_WARM_UP_MIN * world.warm_up)
    out.push({
      kind: 'horizon_too_short',
      pointer: '/horizon',
      message: `Only ${time(window)} of simulated time is measured after a warm-up of ${time(world.warm_up)}: lengthen the simulated period to at least ${time(world.warm_up * (1 + WINDOW_PER_WARM_UP_MIN))}, or shorten the warm-up.`,
    });
  const longest = longestStep(world);
  if (longest && window < WINDOW_PER_LONGEST_STEP_MIN * longest.mean)
    out.push({
      kind: 'horizon_too_short',
      pointer: '/horizon',
      message: `Only ${time(window)} of simulated time is measured after the warm-up, while a patient spends ${time(longest.mean)} on average at “${namesIn(world)('step', longest.step)}”: few patients would finish. Measure at least ${time(WINDOW_PER_LONGEST_STEP_MIN * longest.mean)} after the warm-up.`,
    });
  return out;
}

/** The step with the longest mean duration in the baseline (service or delay, in the world time unit), or null. */
function longestStep(world: WorldSpec): { step: string; mean: number } | null {
  const baseline = world.variants.find((variant) => variant.role === 'baseline');
  if (!baseline) return null;
  let best: { step: string; mean: number } | null = null;
  for (const step of compileModel(world, baseline.id).steps) {
    if ((step.kind !== STEP_SERVICE && step.kind !== STEP_DELAY) || !step.duration) continue;
    const mean = step.duration.mean;
    if (Number.isFinite(mean) && (best === null || mean > best.mean)) best = { step: step.id, mean };
  }
  return best;
}
