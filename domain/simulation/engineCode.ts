// Source text of the code the engine generates per compiled model (engine/state.ts: specialise and the specialised loop).
// Safety rule for all of it: the source is built only from the model's integers (indices of measures, steps, resources,
// arrival sources and slots, counts, the engine's integer constants) and this file's fixed text, each number through
// int(). No name, id or other string of the world, and no fraction, is ever part of it: distributions, rates, windows,
// time factors and the horizon are read from the replication at run time.
import { ServiceError } from '../errors.ts';
import {
  MEASURE_AREA,
  MEASURE_CAPACITY_AREA,
  MEASURE_DISCOUNTED,
  MEASURE_DISCOUNTED_CAPACITY,
  MEASURE_OBSERVATIONS,
  MEASURE_STRIDE,
  MEASURE_SUM,
  MEASURE_TIME_FACTOR,
  MEASURE_WINDOW_END,
  MEASURE_WINDOW_START,
} from './engineLayout.ts';
import { type CompiledModel, HOOK_COUNT, HOOK_TO, MEASURE_QUEUE_LENGTH, MEASURE_UTILISATION } from './model.ts';

/** An integer as source text; anything else is refused (the generated source holds no string or fraction of the world). */
export function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new ServiceError('INTERNAL', 'generated engine code: a value that is not an integer');
  return String(value);
}

/** measureState[m * MEASURE_STRIDE + offset], as source text over the local `ms`. */
export function measureAt(m: number, offset: number): string {
  return `ms[${int(m * MEASURE_STRIDE + offset)}]`;
}

/**
 * The measure hooks of point = step * MOMENT_STRIDE + moment, as lines over `entity`, `now`, `ms` and `r` (the replication), with the
 * entity marks in `marks` (an expression). The arithmetic is that of the generic hooks, in the same order.
 */
export function hookLines(model: CompiledModel, point: number, marks: string): string[] {
  const discounted = model.discountPerUnit > 0;
  const at = measureAt;
  const lines: string[] = [];
  for (const code of model.hooks[point] ?? []) {
    const m = code >> 2;
    const role = code & 3;
    const measure = model.measures[m]!;
    if (role === HOOK_COUNT) {
      lines.push(`if (now >= ${at(m, MEASURE_WINDOW_START)} && now < ${at(m, MEASURE_WINDOW_END)}) {`);
      lines.push(`  ${at(m, MEASURE_OBSERVATIONS)}++;`);
      if (discounted) lines.push(`  ${at(m, MEASURE_DISCOUNTED)} += Math.exp(-r.discount * (now - r.discountOrigin));`);
      lines.push('}');
      continue;
    }
    const slot = `entity * ${int(model.markSlots)} + ${int(measure.markSlot)}`;
    if (role === HOOK_TO) {
      lines.push('{', `  const slot = ${slot};`, `  const mark = ${marks}[slot];`, '  if (!Number.isNaN(mark)) {');
      lines.push(`    const value = (now - mark) * ${at(m, MEASURE_TIME_FACTOR)};`);
      lines.push(`    ${at(m, MEASURE_SUM)} += value;`, `    ${at(m, MEASURE_OBSERVATIONS)}++;`);
      if (measure.percentiles.length > 0 || Number.isFinite(measure.threshold)) lines.push(`    r.observe(${int(m)}, value);`);
      if (discounted) lines.push(`    ${at(m, MEASURE_DISCOUNTED)} += r.discountedSpan(mark, now);`);
      lines.push(`    ${marks}[slot] = NaN;`, '  }', '}');
    } else lines.push(`if (now >= ${at(m, MEASURE_WINDOW_START)} && now < ${at(m, MEASURE_WINDOW_END)}) ${marks}[${slot}] = now;`);
  }
  return lines;
}

/** The expressions generated code reads one resource's state by. */
export type ResourceNames = { busy: string; queue: string; capacity: string };

/** The utilisation and queue_length measures of a resource, in measure order. */
export function resourceMeasures(model: CompiledModel, resource: number): number[] {
  return model.measures.flatMap((measure, m) =>
    (measure.kind === MEASURE_UTILISATION || measure.kind === MEASURE_QUEUE_LENGTH) && measure.resource === resource ? [m] : [],
  );
}

/**
 * Lines adding a resource's time-weighted areas from `last` to `now`, clipped to each measure's window (the caller
 * skips them when now is last, and sets last to now after). The arithmetic is that of the generic touch, in the same order.
 */
export function areaLines(model: CompiledModel, measures: number[], names: ResourceNames): string[] {
  const discounted = model.discountPerUnit > 0;
  const at = measureAt;
  const lines: string[] = [];
  for (const m of measures) {
    lines.push('{', `  const low = Math.max(last, ${at(m, MEASURE_WINDOW_START)});`, `  const high = Math.min(now, ${at(m, MEASURE_WINDOW_END)});`);
    lines.push('  if (!(high <= low)) {');
    if (model.measures[m]!.kind === MEASURE_UTILISATION) {
      lines.push(`    ${at(m, MEASURE_AREA)} += ${names.busy} * (high - low);`, `    ${at(m, MEASURE_CAPACITY_AREA)} += ${names.capacity} * (high - low);`);
      if (discounted) {
        lines.push('    const span = r.discountedSpan(low, high);');
        lines.push(`    ${at(m, MEASURE_DISCOUNTED)} += ${names.busy} * span;`, `    ${at(m, MEASURE_DISCOUNTED_CAPACITY)} += ${names.capacity} * span;`);
      }
    } else lines.push(`    ${at(m, MEASURE_AREA)} += ${names.queue} * (high - low);`);
    lines.push('  }', '}');
  }
  return lines;
}

/** Generated functions by source: models with the same layout share one function (and its optimised code). */
const generatedBySource = new Map<string, (...args: never[]) => unknown>();
const GENERATED_CACHE_MAX = 512;

export function generated(source: string, ...parameters: string[]): (...args: never[]) => unknown {
  const key = `${parameters.join(',')}\n${source}`;
  let code = generatedBySource.get(key);
  if (!code) {
    if (generatedBySource.size >= GENERATED_CACHE_MAX) generatedBySource.clear();
    code = new Function(...parameters, source) as (...args: never[]) => unknown;
    generatedBySource.set(key, code);
  }
  return code;
}
