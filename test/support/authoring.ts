// Helpers shared by the authoring session tests.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { eventually, http, type TestService, type TestUser } from './harness.ts';
import { emptyIntakeSpec } from './intakeSpecs.ts';

export async function projectWithIntake(service: TestService, user: TestUser): Promise<string> {
  const created = await http(service, 'POST', '/v1/projects', { token: user.session, body: { title: 'Same-day clinic', org_id: user.org_id } });
  expect(created.status).toBe(201);
  const spec = {
    ...emptyIntakeSpec(),
    problem: { text: 'Patients wait too long for a same-day clinic appointment.', provenance: 'user_declared', citations: [] },
    proposed_solution: { text: 'A digital triage form that shortens each consultation', provenance: 'user_declared', citations: [] },
  };
  const confirmed = await http(service, 'POST', `/v1/projects/${created.body.id}/intakes`, { token: user.session, body: { spec } });
  expect(confirmed.status).toBe(201);
  return created.body.id;
}

export function key(): string {
  return `k-${randomBytes(8).toString('hex')}`;
}

/** Starts a session on the project's latest confirmed intake (201 expected); its id. */
export async function startSession(service: TestService, user: TestUser, project_id: string): Promise<string> {
  const created = await http(service, 'POST', `/v1/projects/${project_id}/authoring-sessions`, {
    token: user.session,
    body: {},
    headers: { 'idempotency-key': key() },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

export async function waiting(service: TestService, user: TestUser, session_id: string, checkpoint = 1): Promise<any> {
  return eventually(
    async () => {
      const read = await http(service, 'GET', `/v1/authoring-sessions/${session_id}`, { token: user.session });
      return read.body.status === 'failed' || (read.body.status === 'waiting' && read.body.checkpoint_count >= checkpoint) ? read.body : null;
    },
    60_000,
    `session ${session_id} to wait at checkpoint ${checkpoint}`,
  );
}

export async function usedCredits(service: TestService, session_id: string): Promise<number> {
  const row = await service.db.one<{ total: string | number | null }>(
    "select sum(credits_charged) as total from ai_usage where subject_kind = 'session' and subject_id = ?",
    [session_id],
  );
  return Number(row?.total ?? 0);
}
