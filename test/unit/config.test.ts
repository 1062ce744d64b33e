import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../runtime/config.ts';

describe('configuration', () => {
  it('accepts an empty environment (the embedded default)', () => {
    const config = loadConfig({});
    expect(config.database_url).toBeNull();
    expect(config.port).toBe(8080);
    expect(config.hosted_provider).toBe('offline');
    expect(config.sponsor_api_enabled).toBe(false);
    expect(config.billing_enabled).toBe(false);
  });

  it('lists every bad value with what to fix', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        SERVICE_MASTER_KEY: 'short',
        SERVICE_BILLING_ENABLED: 'maybe',
        CRUCIBLE_HOSTED_AI_PROVIDER: 'openai',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('PORT must be an integer');
    expect(message).toContain('DATABASE_URL must be a postgres: or postgresql: URL');
    expect(message).toContain('SERVICE_MASTER_KEY must be 32 bytes');
    expect(message).toContain('SERVICE_BILLING_ENABLED must be true or false');
    expect(message).toContain('CRUCIBLE_OPENAI_MODEL is not set; no model is guessed');
  });

  it('reads the payload-key rotation list, the Temporal UI origins and the quarantine retention, with their defaults', () => {
    const defaults = loadConfig({});
    expect(defaults.master_keys_previous).toEqual([]);
    expect(defaults.temporal_ui_origins).toEqual(['http://localhost:8233', 'http://127.0.0.1:8233']);
    expect(defaults.quarantine_retention_days).toBe(30);
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const config = loadConfig({
      SERVICE_MASTER_KEY_PREVIOUS: `${a.toString('base64')}, ${b.toString('base64')}`,
      CRUCIBLE_TEMPORAL_UI_ORIGIN: 'https://temporal.example.org,http://10.0.0.5:8080',
      CRUCIBLE_QUARANTINE_RETENTION_DAYS: '7',
    });
    expect(config.master_keys_previous).toEqual([a, b]);
    expect(config.temporal_ui_origins).toEqual(['https://temporal.example.org', 'http://10.0.0.5:8080']);
    expect(config.quarantine_retention_days).toBe(7);
    expect(loadConfig({ CRUCIBLE_TEMPORAL_UI_PORT: '9000' }).temporal_ui_origins).toEqual(['http://localhost:9000', 'http://127.0.0.1:9000']);
  });

  it('refuses a bad rotation key, an origin with a path and a retention outside 1 to 3650 days', () => {
    for (const [env, expected] of [
      [{ SERVICE_MASTER_KEY_PREVIOUS: `${randomBytes(32).toString('base64')},short` }, 'SERVICE_MASTER_KEY_PREVIOUS[1] must be 32 bytes'],
      [{ CRUCIBLE_TEMPORAL_UI_ORIGIN: 'https://temporal.example.org/ui' }, 'CRUCIBLE_TEMPORAL_UI_ORIGIN must list origins'],
      [{ CRUCIBLE_TEMPORAL_UI_ORIGIN: 'ftp://temporal.example.org' }, 'CRUCIBLE_TEMPORAL_UI_ORIGIN must list origins'],
      [{ CRUCIBLE_QUARANTINE_RETENTION_DAYS: '0' }, 'CRUCIBLE_QUARANTINE_RETENTION_DAYS must be an integer from 1 to 3650'],
      [{ CRUCIBLE_QUARANTINE_RETENTION_DAYS: 'forever' }, 'CRUCIBLE_QUARANTINE_RETENTION_DAYS must be an integer from 1 to 3650'],
    ] as const) {
      expect(() => loadConfig(env), expected).toThrow(expected);
    }
  });

  it('reads a model call’s attempt timeout, 120 seconds unless set, and refuses one outside 1 to 300 seconds naming it', () => {
    expect(loadConfig({}).ai_call_timeout_seconds).toBe(120);
    expect(loadConfig({ CRUCIBLE_AI_CALL_TIMEOUT_SECONDS: '45' }).ai_call_timeout_seconds).toBe(45);
    for (const value of ['0', '301', 'two minutes', '1.5']) {
      expect(() => loadConfig({ CRUCIBLE_AI_CALL_TIMEOUT_SECONDS: value }), value).toThrow(
        `CRUCIBLE_AI_CALL_TIMEOUT_SECONDS must be an integer from 1 to 300 (got "${value}")`,
      );
    }
  });
});
