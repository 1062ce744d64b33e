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
});
