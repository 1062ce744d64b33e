// The public world validator's large bodies are parsed and checked on the compute pool (compute/worldValidation.ts): the
// answer equals the one the same checks give on the event loop, refusals come back as their ServiceError, and a small
// body never leaves the event loop.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { onComputeEvent } from '../../compute/pool.ts';
import type { ComputeEvent } from '../../compute/scheduler.ts';
import { checkWorldText, validateWorldText, WORLD_TEXT_INLINE_MAX } from '../../compute/worldValidation.ts';
import { ServiceError } from '../../domain/errors.ts';
import { JSON_NODES_MAX } from '../../domain/jsonBody.ts';

const events: ComputeEvent[] = [];
const unsubscribe = onComputeEvent((event) => events.push(event));
afterAll(() => unsubscribe());

const started = () => events.filter((event) => event.task_kind === 'world_validation' && event.event === 'started').length;

describe('world validation off the event loop', () => {
  it('answers a large body of unknown fields from a pool thread, as the event loop would, listing the first 100 problems', async () => {
    const keys = `{${Array.from({ length: 90_000 }, (_, index) => `"k${index}":0`).join(',')}}`;
    expect(keys.length).toBeGreaterThan(WORLD_TEXT_INLINE_MAX);
    const before = started();
    const answer = await validateWorldText(keys);
    expect(started()).toBe(before + 1);
    const inline = checkWorldText(keys);
    expect(inline.ok && inline.validation).toEqual(answer);
    expect(answer.valid).toBe(false);
    expect(answer.problems).toHaveLength(100);
    expect(answer.problems_not_listed).toBeGreaterThan(89_000);
  });

  it('refuses a large body over JSON_NODES_MAX or with bad syntax with the error the router gives', async () => {
    const nodes = `[${Array.from({ length: JSON_NODES_MAX + 10 }, () => '0').join(',')}]`;
    const refused = await validateWorldText(nodes).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe('VALIDATION_FAILED');
    expect((refused as ServiceError).message).toContain(`JSON_NODES_MAX (${JSON_NODES_MAX})`);
    const broken = await validateWorldText(`{"a": "${'x'.repeat(WORLD_TEXT_INLINE_MAX)}"`).catch((error: unknown) => error);
    expect((broken as ServiceError).message).toBe('The request body is not valid JSON; fix the syntax and resend.');
    const list = await validateWorldText(`[${'1,'.repeat(WORLD_TEXT_INLINE_MAX)}1]`).catch((error: unknown) => error);
    expect((list as ServiceError).details).toEqual([{ path: '/', message: 'must be object' }]);
  });

  it('checks the sample world where it arrives, with the same answer', async () => {
    const sample = readFileSync(new URL('../../samples/worlds/gp_triage_digital_front_door.json', import.meta.url), 'utf8');
    expect(sample.length).toBeLessThanOrEqual(WORLD_TEXT_INLINE_MAX);
    const before = started();
    const answer = await validateWorldText(sample);
    expect(started()).toBe(before);
    expect(answer).toMatchObject({ valid: true, problems: [] });
  });
});
