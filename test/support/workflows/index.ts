// The tests' workflow bundle: every production workflow plus the test-only ones, which stay out of the production worker.
export * from '../../../workflows/index.ts';
export { aiCallTestWorkflow } from './aiCall.ts';
export { failureBoundaryProbeWorkflow } from './boundary.ts';
export { creditSagaProbeWorkflow, creditSettleRetryProbeWorkflow } from './credits.ts';
