// The way to get credits each "not enough credits" message names, per deployment: billing on, a sponsor program open,
// a local service's owner, anyone else.
import { describe, expect, it } from 'vitest';
import { addCredits, grantCreditsCommand, insufficientCreditsMessage } from '../../domain/credits/addCredits.ts';
import { loadConfig, WELCOME_CREDITS_DEFAULT } from '../../runtime/config.ts';

const base = { billing_enabled: false, sponsor_program_open: false, local_service: false, org_id: 'org_0123456789abcdef', role: 'owner' as const };

describe('the way to add credits', () => {
  it('names the Billing page when billing is on, to an owner or admin as something they do', () => {
    for (const role of ['owner', 'admin'] as const) {
      const way = addCredits({ ...base, billing_enabled: true, local_service: true, role });
      expect(way).toEqual({ way: 'billing', sentence: 'Buy credits on the Billing page.', command: null });
    }
  });

  it('tells a member to ask an owner or admin to buy on the Billing page', () => {
    const way = addCredits({ ...base, billing_enabled: true, role: 'member' });
    expect(way.way).toBe('billing');
    expect(way.sentence).toBe('Ask an owner or admin of your organization to buy credits on the Billing page.');
  });

  it('adds the sponsor code beside billing when a program is open', () => {
    const way = addCredits({ ...base, billing_enabled: true, sponsor_program_open: true });
    expect(way.sentence).toBe(
      'Buy credits on the Billing page. If your organization takes part in a sponsor program, redeem its sponsor code on the Sponsor page.',
    );
  });

  it('names the sponsor code when a program is open and billing is off', () => {
    const way = addCredits({ ...base, sponsor_program_open: true, local_service: true });
    expect(way).toEqual({
      way: 'sponsor_code',
      sentence: 'If your organization takes part in a sponsor program, redeem its sponsor code on the Sponsor page.',
      command: null,
    });
  });

  it('gives the owner of a local service the exact operator command for their organization', () => {
    const way = addCredits({ ...base, local_service: true });
    expect(way.way).toBe('operator_command');
    expect(way.command).toBe('npm run -s operator -- grant-credits --org org_0123456789abcdef --credits 500 --reason "more credits"');
    expect(way.sentence).toContain(way.command);
  });

  it('tells everyone else to ask the person who runs this service', () => {
    for (const input of [
      { ...base },
      { ...base, local_service: true, role: 'member' as const },
      { ...base, local_service: true, role: 'admin' as const },
      { ...base, role: null },
    ]) {
      expect(addCredits(input)).toEqual({ way: 'ask_operator', sentence: 'Ask the person who runs this service to add credits.', command: null });
    }
  });

  it('puts the way into the message after the numbers', () => {
    const message = insufficientCreditsMessage(3, 23, addCredits({ ...base }));
    expect(message).toBe('Not enough credits: your organization has 3 available and this needs 23. Ask the person who runs this service to add credits.');
    expect(grantCreditsCommand('org_x', 40)).toBe('npm run -s operator -- grant-credits --org org_x --credits 40 --reason "more credits"');
  });
});

describe('CRUCIBLE_WELCOME_CREDITS', () => {
  it('defaults to the welcome grant on the embedded default and to none with DATABASE_URL', () => {
    expect(loadConfig({}).welcome_credits).toBe(WELCOME_CREDITS_DEFAULT);
    expect(loadConfig({ DATABASE_URL: 'postgres://127.0.0.1:5432/crucible' }).welcome_credits).toBe(0);
  });

  it('takes an explicit value on either, 0 turning the grant off', () => {
    expect(loadConfig({ CRUCIBLE_WELCOME_CREDITS: '0' }).welcome_credits).toBe(0);
    expect(loadConfig({ CRUCIBLE_WELCOME_CREDITS: '120' }).welcome_credits).toBe(120);
    expect(loadConfig({ DATABASE_URL: 'postgres://127.0.0.1:5432/crucible', CRUCIBLE_WELCOME_CREDITS: '300' }).welcome_credits).toBe(300);
  });

  it('refuses a value that is not a whole number of credits, naming the variable', () => {
    for (const raw of ['-1', '2.5', 'lots', '9007199254740992']) {
      expect(() => loadConfig({ CRUCIBLE_WELCOME_CREDITS: raw })).toThrow(/CRUCIBLE_WELCOME_CREDITS must be an integer from 0 to 9007199254740991/);
    }
  });
});
