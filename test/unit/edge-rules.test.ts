// The edge's pure rules: the sign-in backoff schedule, the characters a name may not hold (and how the validators word
// that), the client address behind trusted proxies, password hash parameters, and what the CLI prints of stored text.
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../api/http/request.ts';
import { printable, printableDeep, safeJson } from '../../clients/cli/src/output.ts';
import { type SignInLimits, signInWaitSeconds } from '../../domain/accounts/rules.ts';
import { CreateProjectBody } from '../../domain/contracts/projects.ts';
import { checkNameCharacters, hasForbiddenNameCharacter, NAME_CHARACTERS_MESSAGE } from '../../domain/names.ts';
import { loadConfig } from '../../runtime/config.ts';
import { hashPassword, needsRehash, SCRYPT_PARAMETERS, verifyPassword } from '../../store/secrets.ts';

const limits: SignInLimits = { per_email_max: 5, per_address_max: 100, window_seconds: 900, backoff_base_seconds: 1, backoff_max_seconds: 900 };

describe('the sign-in backoff of one email at one address', () => {
  it('lets the first attempts go at once, then doubles the wait from the base up to the cap', () => {
    const waits = Array.from({ length: 18 }, (_, index) => signInWaitSeconds(index + 1, limits));
    expect(waits).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900, 900]);
    expect(signInWaitSeconds(1_000_000, limits)).toBe(900);
  });
});

describe('characters in names', () => {
  it('finds C0 and C1 controls and bidirectional overrides and isolates, and nothing in ordinary names', () => {
    for (const bad of ['a\u0000', 'a\tb', 'a\nb', 'a\rb', '\u001b[31m', 'a\u007f', 'a\u0085', 'a\u009b', 'a\u202ab', 'a\u202eb', 'a\u2066b', 'a\u2069']) {
      expect(hasForbiddenNameCharacter(bad), JSON.stringify(bad)).toBe(true);
    }
    for (const good of ['Remote monitoring – phase 2', 'Überweisung', 'مشروع', '患者の流れ', 'O’Brien clinic (α)', 'emoji 🩺']) {
      expect(hasForbiddenNameCharacter(good), good).toBe(false);
    }
  });

  it('words the refusal the same in the domain check and in the schema validator, naming the field', () => {
    expect(() => checkNameCharacters('x\u001b', '/title')).toThrow(NAME_CHARACTERS_MESSAGE);
    expect(schemaErrors(CreateProjectBody, { title: 'Plan\u202e', org_id: 'org_1' })).toEqual([{ path: '/title', message: NAME_CHARACTERS_MESSAGE }]);
    expect(schemaErrors(CreateProjectBody, { title: 'Plan – two', org_id: 'org_1' })).toEqual([]);
  });
});

describe('the client address behind proxies', () => {
  const addressOf = (env: Record<string, string>, forwarded: string) => {
    const config = loadConfig(env);
    const app = new Koa({ proxy: config.trust_proxy, maxIpsCount: config.trusted_proxies });
    const request = { headers: { 'x-forwarded-for': forwarded }, socket: { remoteAddress: '10.0.0.9' } };
    return app.createContext(request as never, {} as never).ip;
  };

  it('takes the entry the trusted proxies appended, never a leftmost one the client wrote', () => {
    expect(addressOf({ CRUCIBLE_TRUST_PROXY: 'true' }, '6.6.6.6, 203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf({ CRUCIBLE_TRUST_PROXY: 'true', CRUCIBLE_TRUSTED_PROXIES: '2' }, '6.6.6.6, 203.0.113.7, 10.0.0.2')).toBe('203.0.113.7');
    expect(addressOf({}, '6.6.6.6')).toBe('10.0.0.9');
  });

  it('refuses CRUCIBLE_TRUSTED_PROXIES without CRUCIBLE_TRUST_PROXY, and a count out of range', () => {
    expect(() => loadConfig({ CRUCIBLE_TRUSTED_PROXIES: '1' })).toThrow(/CRUCIBLE_TRUSTED_PROXIES is set but CRUCIBLE_TRUST_PROXY is not true/);
    expect(() => loadConfig({ CRUCIBLE_TRUST_PROXY: 'true', CRUCIBLE_TRUSTED_PROXIES: '0' })).toThrow(
      /CRUCIBLE_TRUSTED_PROXIES must be an integer from 1 to 10/,
    );
  });
});

describe('password hashes', () => {
  it("hash at OWASP's scrypt parameters, still verify older ones and say they need a rehash", async () => {
    expect(SCRYPT_PARAMETERS).toMatchObject({ N: 2 ** 17, r: 8, p: 1 });
    const current = await hashPassword('correct horse battery');
    expect(current.startsWith('scrypt$131072$8$1$')).toBe(true);
    expect(needsRehash(current)).toBe(false);
    const old = await hashPassword('correct horse battery', { N: 2 ** 14, r: 8, p: 1 });
    expect(needsRehash(old)).toBe(true);
    expect(await verifyPassword('correct horse battery', old)).toBe(true);
    expect(await verifyPassword('wrong horse battery', old)).toBe(false);
    // a stored hash asking for more memory than allowed verifies nothing (and is not computed)
    expect(await verifyPassword('x', 'scrypt$1048576$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$abc$8$1$AA==$AA==')).toBe(false);
  });
});

describe('what the CLI prints of stored text', () => {
  it('strips escape sequences, controls and bidirectional overrides; one line stays one line', () => {
    expect(printable('Budget\u001b[2K\r\u001b]0;owned\u0007\nproj_fake\u202e\u009b31m')).toBe('Budget  proj_fake');
    expect(printable('line one\nline\ttwo\r\n\u001b[1mbold\u001b[0m', true)).toBe('line one\nline\ttwo\nbold');
  });

  it('escapes in JSON what JSON.stringify leaves raw, so the value reads back as stored', () => {
    const value = { title: 'a\u001bb\u009bc\u202ed\u2028' };
    const text = safeJson(value);
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('cleans every string of a tool result, keys included, keeping line breaks', () => {
    expect(printableDeep({ 'ti\u202etle': ['a\u001b[31mb', { text: '1| one\n2| two' }], n: 3, none: null })).toEqual({
      title: ['ab', { text: '1| one\n2| two' }],
      n: 3,
      none: null,
    });
  });
});
