// Public discovery bodies (no token; spec: Versioning, Health): the deployment's feature flags, readiness and liveness,
// and the list of named contracts.
import { Type } from 'typebox';

export const Features = Type.Object({
  sponsor_api: Type.Boolean({ description: 'SERVICE_SPONSOR_API_ENABLED: the sponsor endpoints answer (otherwise 503 SPONSOR_NOT_CONFIGURED)' }),
  billing: Type.Boolean({ description: 'SERVICE_BILLING_ENABLED: the billing endpoints answer (otherwise 503 BILLING_NOT_CONFIGURED)' }),
});

/** One readiness check: whether it passed and what it found. */
export const HealthCheck = Type.Object({ ok: Type.Boolean(), detail: Type.String() });
export const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  checks: Type.Object({ database: HealthCheck, temporal: HealthCheck, worker: HealthCheck }),
});
export const Liveness = Type.Object({ status: Type.Literal('ok') });

export const SchemaList = Type.Object({ data: Type.Array(Type.Object({ name: Type.String(), version: Type.String() })) });

/** A prompt id as a path names it. */
export const PROMPT_ID_PATTERN = '^[a-z0-9][a-z0-9._-]{0,99}$';
