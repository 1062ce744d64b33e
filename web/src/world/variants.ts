// Variants as a person sees them: the baseline with the variant's changes applied and highlighted, edits that land in
// the variant's changes, and the flags a change earns before the world is saved: one that sets the value the baseline
// already has (it changes nothing), and one that now runs against the direction its own reason states (after the
// baseline was edited: "more requests resolved with advice" while the share is now lower than the baseline's).
import { type Variant, type World, formatSetting, settingName } from './model.ts';
import { exact, toWorld } from './quantities.ts';

export const baselineOf = (world: World): Variant | undefined => world.variants.find((v) => v.role === 'baseline');

/** A setting's value in the baseline: as written, or as the baseline variant sets it. */
export function baselineValue(world: World, name: string): number | undefined {
  return baselineOf(world)?.changes.find((c) => c.setting === name)?.value ?? world.settings[name]?.value;
}

/** The world as a variant sets it: every setting it changes takes the variant's value (the pathway stays as drawn). */
export function variantView(world: World, variantId: string): World {
  const variant = world.variants.find((v) => v.id === variantId);
  if (!variant) return world;
  const settings = { ...world.settings };
  for (const change of variant.changes) {
    const setting = settings[change.setting];
    if (setting) settings[change.setting] = { ...setting, value: change.value };
  }
  return { ...world, settings };
}

/** The diagram's nodes (`step:id`, `arrival:id`) whose numbers come from a setting the variant changes. */
export function changedNodes(world: World, variantId: string): Set<string> {
  const variant = world.variants.find((v) => v.id === variantId);
  const names = new Set(variant?.role === 'treatment' ? variant.changes.map((c) => c.setting) : []);
  const uses = (part: unknown) => [...names].some((name) => JSON.stringify(part).includes(`{"setting":"${name}"}`));
  const nodes = new Set<string>();
  for (const a of world.arrivals) if (uses(a)) nodes.add(`arrival:${a.id}`);
  for (const s of world.steps) if (uses(s) || uses(world.resources.find((r) => r.id === s.resource) ?? null)) nodes.add(`step:${s.id}`);
  return nodes;
}

/**
 * An edit made while a variant is shown: a setting whose value changed becomes (or updates) the variant's change; a
 * setting's unit changed converts the setting and every variant's value of it; anything else is the pathway itself and
 * changes every variant (a variant changes settings only).
 */
export function applyVariantEdit(world: World, variantId: string, view: World, edited: World): World {
  const settings = { ...world.settings };
  let variants = world.variants;
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
      variants = variants.map((v) => {
        if (v.id !== variantId) return v;
        const has = v.changes.some((c) => c.setting === name);
        return {
          ...v,
          changes: has ? v.changes.map((c) => (c.setting === name ? { ...c, value: after.value } : c)) : [...v.changes, { setting: name, value: after.value }],
        };
      });
    }
  }
  return { ...edited, settings, variants };
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
