// Editing a world from the diagram (web/src/world/edit.ts, variants.ts): a world made from nothing and grown step by
// step validates and runs at every stage; removing a step names what depends on it; a variant shown as the baseline
// with its changes takes the form's edits as its changes; and a baseline edit that turns a variant against its own
// stated reason, or makes it equal to the baseline, is flagged.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { runReplication } from '../../domain/simulation/engine.ts';
import { validateWorld } from '../../domain/simulation/validate.ts';
import { addMeasure, addResource, addStep, blankWorld, connect, removalWords, removeStep, stepDependents } from '../../web/src/world/edit.ts';
import { type World, stepName, withSetting, withStep } from '../../web/src/world/model.ts';
import { applyVariantEdit, changedNodes, statedDirection, variantFlags, variantView } from '../../web/src/world/variants.ts';

const gpSample = (): World => JSON.parse(readFileSync(new URL('../../samples/worlds/gp_triage_digital_front_door.json', import.meta.url), 'utf8')) as World;

/** The world is valid and one repetition of each variant runs to its end with people through it. */
function expectValidAndRuns(world: World) {
  expect(validateWorld(world).problems).toEqual([]);
  for (const variant of world.variants) {
    const result = runReplication(world as unknown as WorldSpec, { variant_id: variant.id, replication_index: 0 });
    expect(result.event_counts.arrivals).toBeGreaterThan(0);
  }
}

/** The pathway built in the browser test, by the same edits: a care step, a decision, a treatment, a second exit. */
function physiotherapyWorld(): World {
  let world = blankWorld();
  let added = addStep(world, 'service', 'Physiotherapy assessment', 'patients');
  world = added.world;
  const assessment = added.id;
  added = addStep(world, 'branch', 'Needs treatment?', assessment);
  world = added.world;
  const decision = added.id;
  added = addStep(world, 'exit', 'Discharged with advice', null);
  world = added.world;
  const advice = added.id;
  added = addStep(world, 'service', 'Treatment', decision);
  world = added.world;
  const branch = world.steps.find((s) => s.id === decision)!;
  world = withStep(world, {
    ...branch,
    options: [
      { probability: 0.7, next: added.id },
      { probability: 0.3, next: advice },
    ],
  });
  return addMeasure(world, { kind: 'time_between', from: assessment, to: advice, unit: 'hours' });
}

describe('a world made from nothing in the diagram', () => {
  it('validates and runs as it starts, and after each step is added', () => {
    expectValidAndRuns(blankWorld());
    const world = physiotherapyWorld();
    expectValidAndRuns(world);
    expect(world.arrivals[0]!.to_step).toBe('physiotherapy_assessment');
    expect(world.steps.find((s) => s.id === 'physiotherapy_assessment')).toMatchObject({
      label: 'Physiotherapy assessment',
      resource: 'staff',
      next: 'needs_treatment',
    });
    expect(world.resources).toEqual([{ id: 'staff', label: 'Staff', capacity: 1 }]);
    expect(world.measured.at(-1)!.label).toBe('time from Physiotherapy assessment to Discharged with advice');
  });

  it('inserts a new step after the selected one and removes it again, naming who went on to it', () => {
    const world = physiotherapyWorld();
    const { world: withPaperwork, id } = addStep(world, 'delay', 'Paperwork', 'physiotherapy_assessment');
    expect(withPaperwork.steps.find((s) => s.id === 'physiotherapy_assessment')!.next).toBe(id);
    expect(withPaperwork.steps.find((s) => s.id === id)!.next).toBe('needs_treatment');
    expectValidAndRuns(withPaperwork);
    expect(removalWords(withPaperwork, id)).toEqual(['“Physiotherapy assessment” goes on to it: it will go on to “Needs treatment?” instead']);
    const removed = removeStep(withPaperwork, id);
    expect(removed.steps.find((s) => s.id === 'physiotherapy_assessment')!.next).toBe('needs_treatment');
    expectValidAndRuns(removed);
  });

  it('names the arrivals and the measures that depend on a step, and removes the measures with it', () => {
    const world = physiotherapyWorld();
    expect(stepDependents(world, 'physiotherapy_assessment')).toEqual([
      'the arrivals “Patients” start at it',
      'the measure “Time from Physiotherapy assessment to Discharged with advice” uses it',
    ]);
    const removed = removeStep(world, 'physiotherapy_assessment');
    expect(removed.arrivals[0]!.to_step).toBe('needs_treatment');
    expect(removed.measured.map((m) => m.id)).toEqual(['people_leaving']);
    expectValidAndRuns(removed);
  });

  it('connects an arrival stream, a step and a decision to another step', () => {
    let world = physiotherapyWorld();
    world = addResource(world, 'Physiotherapists').world;
    world = connect(world, { kind: 'arrival', id: 'patients' }, 'needs_treatment');
    expect(world.arrivals[0]!.to_step).toBe('needs_treatment');
    world = connect(world, { kind: 'step', id: 'treatment' }, 'discharged_with_advice');
    expect(world.steps.find((s) => s.id === 'treatment')!.next).toBe('discharged_with_advice');
    world = connect(world, { kind: 'step', id: 'needs_treatment' }, 'leaves');
    expect(world.steps.find((s) => s.id === 'needs_treatment')!.options!.at(-1)).toEqual({ probability: 0, next: 'leaves' });
    expect(stepName(world, 'needs_treatment')).toBe('Needs treatment?');
  });
});

describe('variants in the diagram', () => {
  it('shows a variant as the baseline with its changed steps highlighted, and takes a form edit as its change', () => {
    const world = gpSample();
    const view = variantView(world, 'digital_front_door');
    expect(view.settings.p_self_care!.value).toBe(0.3);
    expect([...changedNodes(world, 'digital_front_door')].sort()).toEqual(['step:navigator_triage', 'step:route']);
    const edited = applyVariantEdit(world, 'digital_front_door', view, withSetting(view, 'p_nurse', 0.25));
    expect(edited.settings.p_nurse!.value).toBe(0.3);
    expect(edited.variants[1]!.changes.at(-1)).toEqual({ setting: 'p_nurse', value: 0.25 });
    expect(edited.variants[0]!.changes).toEqual([]);
  });

  it('flags nothing in the sample as written', () => {
    expect(variantFlags(gpSample(), gpSample())).toEqual([]);
  });

  it('flags a change the baseline edit turned against its stated reason, and one against its direction when written', () => {
    const opened = gpSample();
    const world = withSetting(withSetting(opened, 'p_self_care', 0.4), 'p_gp', 0.3);
    expect(variantFlags(world, opened).map((f) => f.message)).toEqual([
      "“Online triage form” now lowers the share of requests resolved with self-care advice (40% in “Phone triage only”, 30% in this variant), which it says it raises (“assumed: more requests resolved with advice”). Check the variant's value against the baseline's.",
      "“Online triage form” now raises the share of requests booked with a GP (30% in “Phone triage only”, 40% in this variant), which it lowered when the world was opened (“keeps the probabilities summing to 1”). Check the variant's value against the baseline's.",
    ]);
  });

  it('flags a change equal to the baseline value', () => {
    const opened = gpSample();
    const world = withSetting(opened, 'triage_minutes', 4);
    expect(variantFlags(world, opened)).toEqual([
      {
        variant: 'digital_front_door',
        setting: 'triage_minutes',
        kind: 'same_as_baseline',
        message: '“Online triage form” sets the care navigator’s triage time to 4 minutes, the same as “Phone triage only”: this change does nothing.',
      },
    ]);
  });

  it('reads the direction a reason states, and none when it states both or neither', () => {
    expect(statedDirection('assumed: more requests resolved with advice')).toBe(1);
    expect(statedDirection('a triage form shortens the assessment')).toBe(-1);
    expect(statedDirection('form pre-fills the history')).toBeNull();
    expect(statedDirection('more nurses, fewer GPs')).toBeNull();
  });
});
