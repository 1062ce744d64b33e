// Operator sponsor commands (spec: Authentication — "An API caller cannot self-assign institution verification or the
// sponsor administrator role; operators provision these"). Server side, straight to the database like every operator
// command; merged into OPERATOR_COMMANDS at the end of operator.ts, so they also run through the operator socket.
import { normalizeEmail, trimmedName } from '../domain/accounts/rules.ts';
import { ServiceError } from '../domain/errors.ts';
import { CODE_USES_MAX, generateCode } from '../domain/sponsors/rules.ts';
import { findUserByEmail } from '../store/accounts/accounts.ts';
import { fundProgramPool } from '../store/credits/ledger.ts';
import {
  assignSponsorAdmin,
  codeDigest,
  createInstitution,
  findInstitution,
  insertCode,
  lockProgram,
  revokeCode,
  unassignSponsorAdmin,
  verifyInstitution,
} from '../store/sponsors/sponsors.ts';
import type { Db } from '../store/db.ts';
import { flag, type OperatorArgs, type OperatorCommands } from './operator-command.ts';

/** Digits only: "1e3", "12.0" or "+5" are refused rather than reinterpreted. */
function count(args: OperatorArgs, name: string, max: number): number {
  const raw = flag(args, name);
  const value = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > max)
    throw new ServiceError('VALIDATION_FAILED', `--${name} must be a whole number from 1 to ${max}.`);
  return value;
}

function timestamp(args: OperatorArgs, name: string): string {
  const raw = flag(args, name);
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms)) throw new ServiceError('VALIDATION_FAILED', `--${name} must be an ISO 8601 date or timestamp (e.g. 2026-12-31T23:59:59Z).`);
  return new Date(ms).toISOString();
}

async function requireInstitution(db: Db, id: string) {
  const found = await findInstitution(db, id);
  if (!found) throw new ServiceError('NOT_FOUND', `Institution ${id} was not found.`);
  return found;
}

async function userByEmail(db: Db, args: OperatorArgs) {
  const user = await findUserByEmail(db, normalizeEmail(flag(args, 'email')));
  if (!user) throw new ServiceError('NOT_FOUND', 'No user with that email; create it first with create-user.');
  return user;
}

export const SPONSOR_OPERATOR_COMMANDS: OperatorCommands = {
  'institution create': {
    usage: 'institution create --name N',
    async run(db, args) {
      const created = await db.transaction((tx) => createInstitution(tx, trimmedName(flag(args, 'name'), 'name')));
      return { institution_id: created.id, name: created.name, verified_at: created.verified_at };
    },
  },
  'institution verify': {
    usage: 'institution verify --id I --date D   (the verification record; programs can then be activated)',
    async run(db, args) {
      const verified = await db.transaction((tx) => verifyInstitution(tx, flag(args, 'id'), timestamp(args, 'date')));
      if (!verified) throw new ServiceError('NOT_FOUND', `Institution ${flag(args, 'id')} was not found.`);
      return { institution_id: verified.id, name: verified.name, verified_at: verified.verified_at };
    },
  },
  'sponsor-admin assign': {
    usage: 'sponsor-admin assign --institution I --email E',
    async run(db, args) {
      const found = await requireInstitution(db, flag(args, 'institution'));
      const user = await userByEmail(db, args);
      await db.transaction((tx) => assignSponsorAdmin(tx, found.id, user.id));
      return { institution_id: found.id, user_id: user.id, assigned: true };
    },
  },
  'sponsor-admin unassign': {
    usage: 'sponsor-admin unassign --institution I --email E',
    async run(db, args) {
      const found = await requireInstitution(db, flag(args, 'institution'));
      const user = await userByEmail(db, args);
      const removed = await db.transaction((tx) => unassignSponsorAdmin(tx, found.id, user.id));
      return { institution_id: found.id, user_id: user.id, assigned: false, was_assigned: removed };
    },
  },
  'program fund': {
    usage: 'program fund --program P --credits N [--reason R]   (a pool grant for pilots without billing; prints the transaction id)',
    async run(db, args) {
      const credits = count(args, 'credits', Number.MAX_SAFE_INTEGER);
      const reason = typeof args.flags.reason === 'string' && args.flags.reason ? args.flags.reason : 'operator pool grant';
      const funded = await db.transaction(async (tx) => {
        const program = await lockProgram(tx, flag(args, 'program'));
        if (!program) throw new ServiceError('NOT_FOUND', `Program ${flag(args, 'program')} was not found.`);
        if (program.status === 'closed' || Date.parse(program.ends_at) <= Date.now()) {
          throw new ServiceError('CONFLICT', `Program ${program.id} is closed or has ended; it cannot be funded.`);
        }
        return fundProgramPool(tx, { program_id: program.id, ends_at: program.ends_at, credits, reason, caused_by: 'operator' });
      });
      return { transaction_id: funded.id, program_id: funded.program_id, credits: funded.credits };
    },
  },
  'code issue': {
    usage: 'code issue --program P --expires-at T --max-uses N   (prints the code once; only its digest is stored)',
    async run(db, args) {
      const expires_at = timestamp(args, 'expires-at');
      if (Date.parse(expires_at) <= Date.now()) throw new ServiceError('VALIDATION_FAILED', '--expires-at must be in the future.');
      const max_uses = count(args, 'max-uses', CODE_USES_MAX);
      const code = generateCode();
      const issued = await db.transaction(async (tx) => {
        const program = await lockProgram(tx, flag(args, 'program'));
        if (!program) throw new ServiceError('NOT_FOUND', `Program ${flag(args, 'program')} was not found.`);
        if (program.status === 'closed') throw new ServiceError('CONFLICT', `Program ${program.id} is closed; it takes no new codes.`);
        return insertCode(tx, { program_id: program.id, digest: codeDigest(code), expires_at, max_uses });
      });
      return { code_id: issued.id, program_id: issued.program_id, code, expires_at: issued.expires_at, max_uses: issued.max_uses };
    },
  },
  'code revoke': {
    usage: 'code revoke --id C',
    async run(db, args) {
      const revoked = await db.transaction((tx) => revokeCode(tx, flag(args, 'id')));
      if (!revoked) throw new ServiceError('NOT_FOUND', `Code ${flag(args, 'id')} was not found.`);
      return { code_id: revoked.id, program_id: revoked.program_id, revoked_at: revoked.revoked_at, uses: revoked.uses };
    },
  },
};
