// How an organization gets more credits on this deployment, in the words every "not enough credits" message uses
// (the API's INSUFFICIENT_CREDITS message, the credits answer the web app's header reads). Pure: the caller gathers
// the deployment's flags, whether a sponsor program is open and the person's role (docs/credits.md "Adding credits").

/** The ways that can exist: buying packs, redeeming a sponsor code, an operator command on a local service, asking. */
export const ADD_CREDITS_WAYS = ['billing', 'sponsor_code', 'operator_command', 'ask_operator'] as const;
export type AddCreditsWay = (typeof ADD_CREDITS_WAYS)[number];

export type AddCreditsInput = {
  /** SERVICE_BILLING_ENABLED: the Billing page exists. */
  billing_enabled: boolean;
  /** The sponsor API is on and a program is active inside its dates: a sponsor code can be redeemed. */
  sponsor_program_open: boolean;
  /** The embedded default (no DATABASE_URL): the service runs on one computer, started with `npm start`. */
  local_service: boolean;
  org_id: string;
  /** The person's role in the organization; null when not known (an operator, a sponsor administrator). */
  role: 'owner' | 'admin' | 'member' | null;
};

export type AddCredits = {
  way: AddCreditsWay;
  /** One or two sentences a person reads as is: what to do to get credits here. */
  sentence: string;
  /** The exact command for the owner of a local service; null otherwise. */
  command: string | null;
};

/** A grant of this size is what the command suggests: the default welcome grant. */
export const SUGGESTED_GRANT_CREDITS = 500;

/** The operator command that adds credits on a local service (README: operator commands). */
export function grantCreditsCommand(org_id: string, credits = SUGGESTED_GRANT_CREDITS): string {
  return `npm run -s operator -- grant-credits --org ${org_id} --credits ${credits} --reason "more credits"`;
}

/** The way that exists here, first the one a person can take themselves. */
export function addCredits(input: AddCreditsInput): AddCredits {
  const buyer = input.role === 'owner' || input.role === 'admin';
  const sponsor = input.sponsor_program_open ? ' If your organization takes part in a sponsor program, redeem its sponsor code on the Sponsor page.' : '';
  if (input.billing_enabled) {
    const sentence = buyer ? 'Buy credits on the Billing page.' : 'Ask an owner or admin of your organization to buy credits on the Billing page.';
    return { way: 'billing', sentence: `${sentence}${sponsor}`, command: null };
  }
  if (input.sponsor_program_open) {
    return { way: 'sponsor_code', sentence: sponsor.trim(), command: null };
  }
  if (input.local_service && input.role === 'owner') {
    const command = grantCreditsCommand(input.org_id);
    return {
      way: 'operator_command',
      sentence: `This service runs on your computer: add credits by running this command in its folder: ${command}`,
      command,
    };
  }
  return { way: 'ask_operator', sentence: 'Ask the person who runs this service to add credits.', command: null };
}

/** The INSUFFICIENT_CREDITS message with the way to get credits in place of the generic advice. */
export function insufficientCreditsMessage(available_credits: number, needed_credits: number, way: AddCredits): string {
  return `Not enough credits: your organization has ${available_credits} available and this needs ${needed_credits}. ${way.sentence}`;
}
