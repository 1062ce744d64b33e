// Provider keys at rest and the pure AI-call rules: sealing, loud decryption failures, key checks, pricing, registries.
import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { checkProviderKey, lastFour, PROVIDER_KEY_LENGTH_MAX, PROVIDER_KEY_LENGTH_MIN } from '../../domain/ai/keys.ts';
import { aiCallCredits, aiCallCreditsMax } from '../../domain/ai/pricing.ts';
import { aiSchema, offlineTask, registerAiSchema, registerOfflineTask } from '../../domain/ai/registry.ts';
import { ServiceError } from '../../domain/errors.ts';
import { openProviderKey, ProviderKeyDecryptionError, sealProviderKey } from '../../store/providerKeys/crypto.ts';

const API_KEY = 'sk-unit-7d3f0c9e1a2b4c5d6e7f8091a2b3c4d5';
const binding = { org_id: 'org_aaaa', key_id: 'key_bbbb' };

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('sealing a provider key (AES-256-GCM)', () => {
  it('opens with the same master key and binding', () => {
    const master = randomBytes(32);
    const sealed = sealProviderKey(master, binding, API_KEY);
    expect(openProviderKey(master, binding, sealed).api_key).toBe(API_KEY);
    expect(sealed.nonce).toHaveLength(12);
    expect(sealed.auth_tag).toHaveLength(16);
    expect(sealed.ciphertext.toString('utf8')).not.toContain(API_KEY.slice(3, 12));
  });

  it('uses a fresh nonce for every key, so the same key seals differently', () => {
    const master = randomBytes(32);
    const a = sealProviderKey(master, binding, API_KEY);
    const b = sealProviderKey(master, binding, API_KEY);
    expect(a.nonce.equals(b.nonce)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
  });

  it('fails loudly with a wrong master key and never returns garbage', () => {
    const sealed = sealProviderKey(randomBytes(32), binding, API_KEY);
    const error = thrown(() => openProviderKey(randomBytes(32), binding, sealed));
    expect(error).toBeInstanceOf(ProviderKeyDecryptionError);
    expect(error.message).toMatch(/neither SERVICE_MASTER_KEY nor a key in SERVICE_MASTER_KEY_PREVIOUS is the key it was stored under/);
    expect(error.message).not.toContain(API_KEY.slice(-8));
  });

  it('binds the ciphertext to its organization and key id (another row cannot reuse it)', () => {
    const master = randomBytes(32);
    const sealed = sealProviderKey(master, binding, API_KEY);
    expect(thrown(() => openProviderKey(master, { ...binding, org_id: 'org_other' }, sealed))).toBeInstanceOf(ProviderKeyDecryptionError);
    expect(thrown(() => openProviderKey(master, { ...binding, key_id: 'key_other' }, sealed))).toBeInstanceOf(ProviderKeyDecryptionError);
  });

  it('detects an altered ciphertext', () => {
    const master = randomBytes(32);
    const sealed = sealProviderKey(master, binding, API_KEY);
    sealed.ciphertext[0] ^= 1;
    expect(thrown(() => openProviderKey(master, binding, sealed))).toBeInstanceOf(ProviderKeyDecryptionError);
  });

  it('opens a key sealed under a previous master key (SERVICE_MASTER_KEY_PREVIOUS) and says so', () => {
    const old_master = randomBytes(32);
    const new_master = randomBytes(32);
    const sealed = sealProviderKey(old_master, binding, API_KEY);
    expect(openProviderKey(new_master, binding, sealed, [randomBytes(32), old_master]).api_key).toBe(API_KEY);
    expect(openProviderKey(new_master, binding, sealed, [old_master])).toEqual({ api_key: API_KEY, under_previous: true });
    expect(openProviderKey(old_master, binding, sealed, [new_master])).toEqual({ api_key: API_KEY, under_previous: false });
    expect(thrown(() => openProviderKey(new_master, binding, sealed, [randomBytes(32)]))).toBeInstanceOf(ProviderKeyDecryptionError);
    // A previous key does not loosen the binding.
    expect(thrown(() => openProviderKey(new_master, { ...binding, org_id: 'org_other' }, sealed, [old_master]))).toBeInstanceOf(ProviderKeyDecryptionError);
  });

  it('refuses to work without a 32-byte master key', () => {
    expect(thrown(() => sealProviderKey(null, binding, API_KEY)).message).toMatch(/SERVICE_MASTER_KEY is not set/);
    expect(thrown(() => sealProviderKey(randomBytes(16), binding, API_KEY))).toBeInstanceOf(ProviderKeyDecryptionError);
  });
});

describe('checking an API key', () => {
  it('accepts a printable key within the bounds and shows only its last four characters', () => {
    expect(() => checkProviderKey(API_KEY)).not.toThrow();
    expect(lastFour(API_KEY)).toBe('c4d5');
  });

  it.each([
    ['too short', 'x'.repeat(PROVIDER_KEY_LENGTH_MIN - 1), /20 to 512/],
    ['too long', 'x'.repeat(PROVIDER_KEY_LENGTH_MAX + 1), /20 to 512/],
    ['with a space', 'sk-secret part-of-a-long-key-1234', /no spaces/],
    ['with a line break', 'sk-secret-part-of-a-long-key-1234\n', /line breaks/],
    ['non-ASCII', 'sk-secret-part-of-a-long-kéy-1234', /printable ASCII/],
  ])('refuses a key %s with 422 and never echoes it', (_name, key, message) => {
    const error = thrown(() => checkProviderKey(key)) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(message);
    expect(JSON.stringify({ m: error.message, d: error.details })).not.toContain(key.trim().slice(0, 12));
  });
});

describe('pricing an AI call', () => {
  it('charges hosted calls ceil(tokens × price / 1000)', () => {
    expect(aiCallCredits({ byok: false, input_tokens: 11, output_tokens: 7, credits_per_1k_tokens: 1 })).toBe(1);
    expect(aiCallCredits({ byok: false, input_tokens: 1000, output_tokens: 0, credits_per_1k_tokens: 3 })).toBe(3);
    expect(aiCallCredits({ byok: false, input_tokens: 1000, output_tokens: 1, credits_per_1k_tokens: 3 })).toBe(4);
    expect(aiCallCredits({ byok: false, input_tokens: 0, output_tokens: 0, credits_per_1k_tokens: 5 })).toBe(0);
  });

  it('bounds a hosted call from above by its prompt bytes, the provider’s framing and max_output_tokens, for the reservation', () => {
    const bound = aiCallCreditsMax({ byok: false, system: 'ab', prompt: 'é'.repeat(499), max_output_tokens: 1000, credits_per_1k_tokens: 2 });
    // 2 + 998 bytes + PROVIDER_REQUEST_OVERHEAD_TOKENS (1,024) + 1000 output tokens = 3,024 tokens × 2 / 1000 → 7
    expect(bound).toBe(7);
    expect(bound).toBeGreaterThanOrEqual(aiCallCredits({ byok: false, input_tokens: 600, output_tokens: 1000, credits_per_1k_tokens: 2 }));
    expect(aiCallCreditsMax({ byok: true, system: 'a', prompt: 'b', max_output_tokens: 10, credits_per_1k_tokens: 2 })).toBe(0);
  });

  it('charges nothing for a call with the organization key', () => {
    expect(aiCallCredits({ byok: true, input_tokens: 50_000, output_tokens: 9_000, credits_per_1k_tokens: 7 })).toBe(0);
  });
});

describe('the AI registries', () => {
  it('looks schemas up by name and heuristics by task; a different second registration is refused', () => {
    const schema = Type.Object({ a: Type.String() });
    registerAiSchema('KeysUnitSchema', schema);
    registerAiSchema('KeysUnitSchema', schema);
    expect(aiSchema('KeysUnitSchema')).toBe(schema);
    expect(() => registerAiSchema('KeysUnitSchema', Type.Object({}))).toThrow(/already registered/);
    expect(() => registerAiSchema('bad name', schema)).toThrow(/must match/);
    const heuristic = (input: unknown) => ({ a: String(input) });
    registerOfflineTask('keys_unit_task', heuristic);
    expect(offlineTask('keys_unit_task')?.(5)).toEqual({ a: '5' });
    expect(offlineTask('no_such_task')).toBeUndefined();
  });
});
