// The jobs named in one place (domain/jobs.ts) match what the production worker registers and what the dev server is
// told to index; test-only workflows stay out of the production bundle.
import { describe, expect, it } from 'vitest';
import { JOB_ID_PREFIXES, JOB_KINDS, JOB_SEARCH_ATTRIBUTES, JOB_WORKFLOW_TYPES, MAINTENANCE_WORKFLOW_TYPE, jobWorkflowId } from '../../domain/jobs.ts';
import { searchAttributeFlags } from '../../runtime/temporal.ts';
import * as productionWorkflows from '../../workflows/index.ts';

describe('the long jobs', () => {
  it('names each job by a workflow the production worker registers, and nothing test-only is registered', () => {
    const registered = Object.keys(productionWorkflows).sort();
    expect(registered).toEqual([...Object.values(JOB_WORKFLOW_TYPES), MAINTENANCE_WORKFLOW_TYPE].sort());
  });

  it('derives every workflow id from the resource id under a prefix of its own', () => {
    const prefixes = JOB_KINDS.map((kind) => JOB_ID_PREFIXES[kind]);
    expect(new Set(prefixes).size).toBe(JOB_KINDS.length);
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(a.startsWith(b)).toBe(false);
    expect(jobWorkflowId('run', 'run_1')).toBe('run-run_1');
    expect(jobWorkflowId('review', 'rev_1')).toBe('review-rev_1');
    expect(jobWorkflowId('intake_draft', 'drf_1')).toBe('intake-draft-drf_1');
  });

  it('registers every search attribute on the dev server as a Keyword', () => {
    const flags = searchAttributeFlags();
    for (const name of Object.values(JOB_SEARCH_ATTRIBUTES)) expect(flags).toContain(`${name}=Keyword`);
    expect(flags.filter((flag) => flag === '--search-attribute')).toHaveLength(Object.keys(JOB_SEARCH_ATTRIBUTES).length);
  });
});
