// Publishes the simulation room's contracts at /v1/schemas (spec: Versioning): WorldSpec 1.0.0, ResourceSpec
// (experimental), RunManifest, Finding and MetricSummary 1.0.0. Imported by api/routes/worlds/ and api/routes/runs/;
// registering twice is a no-op.
import { registerContract } from '../contracts/registry.ts';
import { Finding, MetricSummary, RUN_RESULTS_VERSION, RunManifest } from '../contracts/runResults.ts';
import { RESOURCE_SPEC_VERSION, ResourceSpec, WORLD_SPEC_VERSION, WorldSpec } from '../contracts/worldSpec.ts';

registerContract({
  name: 'WorldSpec',
  version: WORLD_SPEC_VERSION,
  description:
    'A care-pathway world for discrete-event simulation: settings with units and sources, arrivals, resources, steps, measures, variants and optional cost scenarios. Results are synthetic.',
  schema: WorldSpec,
});
registerContract({
  name: 'ResourceSpec',
  version: RESOURCE_SPEC_VERSION,
  experimental: true,
  description:
    'Experimental: one entry of WorldSpec.resources (capacity and optional shifts) on its own, so authoring tools can draft resources separately. It may change.',
  schema: ResourceSpec,
});
registerContract({
  name: 'RunManifest',
  version: RUN_RESULTS_VERSION,
  description: 'What a world run did: world revision, seeds and seed scheme, engine version, replications completed, timings and credits.',
  schema: RunManifest,
});
registerContract({
  name: 'MetricSummary',
  version: RUN_RESULTS_VERSION,
  description:
    'One measure under one variant over the replications of a run: n, mean, sd, 95% interval, median, p90, censored count, what was still waiting at the end.',
  schema: MetricSummary,
});
registerContract({
  name: 'Finding',
  version: RUN_RESULTS_VERSION,
  description: 'One sentence about a run with the numbers behind it, always labelled synthetic: it describes the model, not the world.',
  schema: Finding,
});
