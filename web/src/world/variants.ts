// Variants as a person sees them: the baseline with the variant's changes applied and highlighted, edits that land in
// the variant's changes, and the flags a change earns before the world is saved: one that sets the value the baseline
// already has (it changes nothing), and one that now runs against the direction its own reason states (after the
// baseline was edited: "more requests resolved with advice" while the share is now lower than the baseline's).
import { idFrom } from './edit.ts';
import { type Step, type Variant, type World, formatSetting, resourceName, settingName, stepKindName, stepName } from './model.ts';
import { exact, toWorld } from './quantities.ts';

export const baselineOf = (world: World): Variant | undefined => world.variants.find((v) => v.role === 'baseline');

/** A setting's value in the baseline: as written, or as the baseline variant sets it. */
export function baselineValue(world: World, name: string): number | undefined {
  return baselineOf(world)?.changes.find((c) => c.setting === name)?.value ?? world.settings[name]?.value;
}

/** A variant's own pathway (WorldSpec `structure`): steps it replaces, adds and removes. */
export type Structure = { replace_steps?: Step[]; add_steps?: Step[]; remove_steps?: string[]; rationale?: string };
export const structureOf = (variant: Variant | undefined): Structure => (variant?.structure ?? {}) as Structure;

/**
 * The world as a variant sets it: every setting it changes takes the variant's value, and its pathway is the
 * baseline's with the steps it removes left out, the ones it replaces in their place and the ones it adds at the end.
 */
export function variantView(world: World, variantId: string): World {
  const variant = world.variants.find((v) => v.id === variantId);
  if (!variant) return world;
  const settings = { ...world.settings };
  for (const change of variant.changes) {
    const setting = settings[change.setting];
    if (setting) settings[change.setting] = { ...setting, value: change.value };
  }
  const structure = structureOf(variant);
  const removed = new Set(structure.remove_steps ?? []);
  const replaced = new Map((structure.replace_steps ?? []).map((step) => [step.id, step]));
  const steps = [...world.steps.filter((s) => !removed.has(s.id)).map((s) => replaced.get(s.id) ?? s), ...(structure.add_steps ?? [])];
  return { ...world, settings, steps };
}

/** The diagram's nodes (`step:id`, `arrival:id`) the variant changes: a number from a setting it changes, or a step of its own pathway. */
export function changedNodes(world: World, variantId: string): Set<string> {
  const variant = world.variants.find((v) => v.id === variantId);
  const names = new Set(variant?.role === 'treatment' ? variant.changes.map((c) => c.setting) : []);
  const uses = (part: unknown) => [...names].some((name) => JSON.stringify(part).includes(`{"setting":"${name}"}`));
  const nodes = new Set<string>();
  for (const a of world.arrivals) if (uses(a)) nodes.add(`arrival:${a.id}`);
  const view = variant?.role === 'treatment' ? variantView(world, variantId) : world;
  for (const s of view.steps) if (uses(s) || uses(world.resources.find((r) => r.id === s.resource) ?? null)) nodes.add(`step:${s.id}`);
  if (variant?.role === 'treatment') {
    const structure = structureOf(variant);
    for (const s of [...(structure.replace_steps ?? []), ...(structure.add_steps ?? [])]) nodes.add(`step:${s.id}`);
  }
  return nodes;
}

/** A value's JSON with its keys sorted: two steps written in another key order are the same step. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** True when `after` is `before` with some numbers turned into settings made by this edit (“Let variants change it”). */
function onlyNewSettings(before: unknown, after: unknown, made: Set<string>): boolean {
  const setting = (after as { setting?: unknown } | null)?.setting;
  if (typeof setting === 'string' && made.has(setting) && typeof before === 'number') return true;
  if (Array.isArray(before) && Array.isArray(after)) return before.length === after.length && before.every((b, i) => onlyNewSettings(b, after[i], made));
  if (before && after && typeof before === 'object' && typeof after === 'object') {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].every((key) => onlyNewSettings((before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key], made));
  }
  return same(before, after);
}

/** A variant's structure without its empty lists; undefined when it changes no step. */
function tidy(structure: Structure): Structure | undefined {
  const out: Structure = {};
  if (structure.replace_steps?.length) out.replace_steps = structure.replace_steps;
  if (structure.add_steps?.length) out.add_steps = structure.add_steps;
  if (structure.remove_steps?.length) out.remove_steps = structure.remove_steps;
  if (!out.replace_steps && !out.add_steps && !out.remove_steps) return undefined;
  if (structure.rationale) out.rationale = structure.rationale;
  return out;
}

/** The variant with its structure set (or taken away when it changes no step). */
export function withStructure(variant: Variant, structure: Structure): Variant {
  const { structure: _old, ...rest } = variant;
  const tidied = tidy(structure);
  return tidied ? { ...rest, structure: tidied } : rest;
}

/**
 * An edit made while a variant is shown, in the same forms as the baseline's. A setting whose value changed becomes (or
 * updates) the variant's change; a setting's unit changed converts the setting and every variant's value of it. A step
 * added, changed or removed belongs to this variant only (its `structure`: the baseline keeps its pathway), and so does
 * the number of staff or equipment at once: a plain number becomes a named setting the variant changes. A number made a
 * setting (“Let variants change it”) is made so for every variant. Arrivals, other resource edits and measures are the
 * world's own and change every variant.
 */
export function applyVariantEdit(world: World, variantId: string, view: World, edited: World): World {
  const settings = { ...world.settings };
  let variants = world.variants;
  const made = new Set(Object.keys(edited.settings).filter((name) => !view.settings[name]));
  for (const [name, after] of Object.entries(edited.settings)) {
    const before = view.settings[name];
    // a setting made while the variant is shown (a plain number that variants may now change) belongs to the world
    if (!before) settings[name] = after;
    if (!before || !settings[name]) continue;
    if (after.unit !== before.unit) {
      const factor = toWorld(1, before.unit, world.time_unit) / toWorld(1, after.unit, world.time_unit);
      settings[name] = { ...settings[name]!, unit: after.unit, value: exact(settings[name]!.value * factor) };
      variants = variants.map((v) => ({ ...v, changes: v.changes.map((c) => (c.setting === name ? { ...c, value: exact(c.value * factor) } : c)) }));
    } else if (after.value !== before.value) {
      variants = variants.map((v) => (v.id === variantId ? changeIn(v, name, after.value) : v));
    }
  }

  // the number at once of a resource: this variant's own, through a named setting
  const resources = edited.resources.map((resource) => {
    const before = view.resources.find((r) => r.id === resource.id);
    if (!before || typeof before.capacity !== 'number' || typeof resource.capacity !== 'number' || before.capacity === resource.capacity) return resource;
    const name = idFrom(`${resourceName(world, resource.id)} at once`, new Set(Object.keys(settings)), 'value');
    settings[name] = {
      value: before.capacity,
      unit: 'count',
      source: { kind: 'user_declared' },
      description: `${resourceName(world, resource.id)} available at once`,
    };
    const units = resource.capacity;
    variants = variants.map((v) => (v.id === variantId ? changeIn(v, name, units) : v));
    return { ...resource, capacity: { setting: name } };
  });

  // the pathway: this variant's structure, the baseline's steps kept as they are
  let steps = world.steps;
  const variant = variants.find((v) => v.id === variantId)!;
  const structure = structureOf(variant);
  let replace = [...(structure.replace_steps ?? [])];
  let add = [...(structure.add_steps ?? [])];
  const remove = new Set(structure.remove_steps ?? []);
  for (const step of edited.steps) {
    const shown = view.steps.find((s) => s.id === step.id);
    if (shown && same(shown, step)) continue;
    const inStructure = replace.some((s) => s.id === step.id) || add.some((s) => s.id === step.id);
    if (shown && !inStructure && onlyNewSettings(shown, step, made)) {
      steps = steps.map((s) => (s.id === step.id ? step : s));
      continue;
    }
    const base = world.steps.find((s) => s.id === step.id);
    if (base) {
      replace = replace.filter((s) => s.id !== step.id);
      if (!same(base, step)) replace.push(step);
      remove.delete(step.id);
    } else {
      add = add.some((s) => s.id === step.id) ? add.map((s) => (s.id === step.id ? step : s)) : [...add, step];
    }
  }
  for (const step of view.steps) {
    if (edited.steps.some((s) => s.id === step.id)) continue;
    replace = replace.filter((s) => s.id !== step.id);
    add = add.filter((s) => s.id !== step.id);
    if (world.steps.some((s) => s.id === step.id)) remove.add(step.id);
  }
  variants = variants.map((v) =>
    v.id === variantId ? withStructure(v, { ...structure, replace_steps: replace, add_steps: add, remove_steps: [...remove] }) : v,
  );
  return { ...edited, settings, resources, steps, variants };
}

/** What a variant's own pathway does, one sentence a step: “Adds “Online form” (time passes)”. */
export function structureWords(world: World, variant: Variant): string[] {
  const structure = structureOf(variant);
  const view = variantView(world, variant.id);
  return [
    ...(structure.add_steps ?? []).map((step) => `Adds “${stepName(view, step.id)}” (${stepKindName(step.kind).toLowerCase()})`),
    ...(structure.replace_steps ?? []).map((step) => `Changes “${stepName(view, step.id)}” from the baseline's`),
    ...(structure.remove_steps ?? []).map((id) => `Leaves out “${stepName(world, id)}”`),
  ];
}

function changeIn(variant: Variant, name: string, value: number): Variant {
  const has = variant.changes.some((c) => c.setting === name);
  return {
    ...variant,
    changes: has ? variant.changes.map((c) => (c.setting === name ? { ...c, value } : c)) : [...variant.changes, { setting: name, value }],
  };
}

export function setChange(world: World, variantId: string, name: string, patch: { value?: number; rationale?: string } | null): World {
  return {
    ...world,
    variants: world.variants.map((v) => {
      if (v.id !== variantId) return v;
      if (patch === null) return { ...v, changes: v.changes.filter((c) => c.setting !== name) };
      const current = v.changes.find((c) => c.setting === name);
      const next = {
        setting: name,
        value: current?.value ?? baselineValue(world, name) ?? 0,
        ...(current?.rationale ? { rationale: current.rationale } : {}),
        ...patch,
      };
      if (next.rationale === '') delete next.rationale;
      return { ...v, changes: current ? v.changes.map((c) => (c.setting === name ? next : c)) : [...v.changes, next] };
    }),
  };
}

const UP = /\b(more|increases?|increased|raises?|raised|higher|longer|greater|grows?|extra|additional|adds?|lengthens?)\b/i;
const DOWN = /\b(fewer|less|lowers?|lowered|reduces?|reduced|reducing|shorter|shortens?|shortened|decreases?|decreased|cuts?|saves?|removes?)\b/i;

/** The direction a change's reason states (+1 raises, -1 lowers), or null when it states none or both. */
export function statedDirection(rationale: string | undefined): 1 | -1 | null {
  if (!rationale) return null;
  const up = UP.test(rationale);
  const down = DOWN.test(rationale);
  return up === down ? null : up ? 1 : -1;
}

export type VariantFlag = { variant: string; setting: string; kind: 'same_as_baseline' | 'against_reason'; message: string };

/**
 * What to check before saving, per change of each treatment: a value equal to the baseline's, and a change that now
 * runs against the direction its reason states (or, when the reason states none, the direction it had when the world
 * was opened: the comparison it was written for).
 */
export function variantFlags(world: World, opened: World | null): VariantFlag[] {
  const baseline = baselineOf(world);
  if (!baseline) return [];
  return world.variants.flatMap((variant) => {
    if (variant.role !== 'treatment') return [];
    return variant.changes.flatMap((change): VariantFlag[] => {
      const setting = world.settings[change.setting];
      const base = baselineValue(world, change.setting);
      if (!setting || base === undefined) return [];
      const name = settingName(world, change.setting);
      const said = (value: number) => formatSetting(value, setting.unit);
      const flag = (kind: VariantFlag['kind'], message: string) => [{ variant: variant.id, setting: change.setting, kind, message }];
      if (change.value === base)
        return flag(
          'same_as_baseline',
          `“${variant.label}” sets ${lower(name)} to ${said(change.value)}, the same as “${baseline.label}”: this change does nothing.`,
        );
      const now = change.value > base ? 1 : -1;
      const written = writtenDirection(opened, variant.id, change.setting);
      const stated = statedDirection(change.rationale) ?? written;
      if (stated === null || stated === now) return [];
      const verb = (d: number) => (d > 0 ? 'raises' : 'lowers');
      const reason = change.rationale ? ` (“${change.rationale}”)` : '';
      const says =
        statedDirection(change.rationale) !== null ? `it says it ${verb(stated)}` : `it ${stated > 0 ? 'raised' : 'lowered'} when the world was opened`;
      return flag(
        'against_reason',
        `“${variant.label}” now ${verb(now)} ${lower(name)} (${said(base)} in “${baseline.label}”, ${said(change.value)} in this variant), which ${says}${reason}. Check the variant's value against the baseline's.`,
      );
    });
  });
}

const lower = (name: string) => (/^[A-Z][a-z]/.test(name) ? name[0]!.toLowerCase() + name.slice(1) : name);

function writtenDirection(opened: World | null, variantId: string, setting: string): 1 | -1 | null {
  if (!opened) return null;
  const change = opened.variants.find((v) => v.id === variantId)?.changes.find((c) => c.setting === setting);
  const base = baselineValue(opened, setting);
  if (!change || base === undefined || change.value === base) return null;
  return change.value > base ? 1 : -1;
}
