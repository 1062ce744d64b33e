// Determinism pinned: a change meant to make the engine faster must not change a single draw, event or float operation
// (docs/performance.md, "The simulation engine"). The sample worlds use every feature (breakdowns, batches, pre-emption,
// patience, costs, calendars, renewal and rate-table arrivals); each variant's replications 0 (with a trace) and 1 are
// hashed together and compared with the digests pinned for this ENGINE_VERSION. urgent_care_treat_release (normal
// durations, stream measures, a one-day pattern from 06:00) and critical_care_elective_cancellations (a seize that turns
// patients away) were added under the same version: existing digests unchanged.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WorldSpec } from '../../domain/contracts/worldSpec.ts';
import { ENGINE_VERSION, runReplication } from '../../domain/simulation/index.ts';

/** Trace events kept in replication 0 (the trace is part of the result, so its records are pinned too). */
const TRACE_LIMIT = 200;

// Recompute (and say why in the commit) only when ENGINE_VERSION changes or a sample world is edited on purpose.
const PINNED: { engine_version: string; digests: Record<string, string> } = {
  engine_version: 'crucible-des 1.1.0',
  digests: {
    ai_imaging_reading_queue: 'w0m3DgWtQPQf4K-PWjvfma',
    ambulance_handover_queue_limit: 'oxRRLspy1XBVnQCSSoypxd',
    community_diagnostic_pathway: '5es0fDvYc3W5f-9N5vxmKt',
    critical_care_elective_cancellations: 'bz2s65RTuakfdaVMy_lfKN',
    ct_stroke_preemptive_priority: 'Yds1VOzrEsockq2Iuk84PJ',
    gp_triage_digital_front_door: '4wbeVYz2ynUEDUwlh1Q1t-',
    minor_injuries_batch_arrivals: '2nvaWJGQta-kCvF4knQ7Z3',
    mri_scanner_breakdowns: 'PVP0riOQr2_7c-lARgpl6o',
    outpatient_renewal_arrivals: 'YciHUWQbKK23DNaxwpyNe6',
    remote_monitoring_admissions: 'X-bveURdmfypZjkzfpSVtB',
    urgent_care_treat_release: 'hCw44ZL_BgErBMA2U0iR_3',
    urgent_treatment_patience: 'hxF6I-ztCuxm3hLygdkmOp',
  },
};

function resultsDigest(world: WorldSpec): string {
  const hash = createHash('sha256');
  for (const variant of world.variants)
    for (const replication of [0, 1])
      hash.update(
        JSON.stringify(runReplication(world, { variant_id: variant.id, replication_index: replication, trace_limit: replication === 0 ? TRACE_LIMIT : 0 })),
      );
  return hash.digest('base64url').slice(0, 22);
}

describe('engine determinism', () => {
  it('gives every sample world, every variant, byte for byte the results pinned for this ENGINE_VERSION', () => {
    expect(ENGINE_VERSION).toBe(PINNED.engine_version);
    const directory = new URL('../../samples/worlds/', import.meta.url);
    const digests: Record<string, string> = {};
    for (const file of readdirSync(directory)
      .filter((name) => name.endsWith('.json'))
      .sort()) {
      digests[file.slice(0, -'.json'.length)] = resultsDigest(JSON.parse(readFileSync(new URL(file, directory), 'utf8')) as WorldSpec);
    }
    expect(digests).toEqual(PINNED.digests);
  });
});
