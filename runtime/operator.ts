// Operator commands: server side, straight to the database, never over HTTP.
// While `start` runs on PGlite (one process's database) they travel over a local Unix socket to the service process.
import { existsSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { checkPassword, isRole, normalizeEmail, trimmedName } from '../domain/accounts/rules.ts';
import { ServiceError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { addMember, createOrganization, createUser, findOrganization, findOrganizationByName, findUserByEmail } from '../store/accounts/accounts.ts';
import type { Db, Tx } from '../store/db.ts';
import { BILLING_OPERATOR_COMMANDS } from './operator-billing.ts';
import { flag, type OperatorArgs, type OperatorCommand, type OperatorCommands } from './operator-command.ts';
import { CREDIT_OPERATOR_COMMANDS } from './operator-credits.ts';
import { KEY_OPERATOR_COMMANDS } from './operator-keys.ts';
import { SPONSOR_OPERATOR_COMMANDS } from './operator-sponsors.ts';
import { generatePassword } from '../store/secrets.ts';

export type { OperatorArgs, OperatorCommand } from './operator-command.ts';

export const OPERATOR_COMMANDS: OperatorCommands = {
  'create-user': {
    usage: 'create-user --email E   (password from stdin, or generated and printed once)',
    async run(db, args) {
      const email = normalizeEmail(flag(args, 'email'));
      const supplied = args.stdin?.replace(/\r?\n$/, '') ?? '';
      const password = supplied || generatePassword();
      checkPassword(password);
      const user = await db.transaction((tx) => createUser(tx, email, password));
      return { user_id: user.id, email: user.email, ...(supplied ? {} : { password }) };
    },
  },
  'create-org': {
    usage: 'create-org --name N --owner E',
    async run(db, args) {
      const name = trimmedName(flag(args, 'name'), 'name');
      const owner = await findUserByEmail(db, normalizeEmail(flag(args, 'owner')));
      if (!owner) throw new ServiceError('NOT_FOUND', 'No user with that email; create it first with create-user.');
      const org = await db.transaction((tx) => createOrganization(tx, name, owner.id));
      return { org_id: org.id, name: org.name, owner_user_id: owner.id };
    },
  },
  'add-member': {
    usage: 'add-member --org O --email E --role owner|admin|member',
    async run(db, args) {
      const org_id = flag(args, 'org');
      const role = flag(args, 'role');
      if (!isRole(role)) throw new ServiceError('VALIDATION_FAILED', '--role must be owner, admin or member.');
      if (!(await findOrganization(db, org_id))) throw new ServiceError('NOT_FOUND', `Organization ${org_id} was not found.`);
      const user = await findUserByEmail(db, normalizeEmail(flag(args, 'email')));
      if (!user) throw new ServiceError('NOT_FOUND', 'No user with that email; create it first with create-user.');
      const membership = await db.transaction((tx) => addMember(tx, org_id, user.id, role));
      return { membership_id: membership.id, org_id, user_id: user.id, role: membership.role };
    },
  },
  bootstrap: {
    usage: 'bootstrap --email E --org N [--json]   (creates whatever is missing)',
    async run(db, args) {
      const email = normalizeEmail(flag(args, 'email'));
      const orgName = trimmedName(flag(args, 'org'), 'org');
      return db.transaction((tx) => bootstrap(tx, email, orgName));
    },
  },
};

/** The user (with a generated password when new) and the organization they own: whatever is missing, in the caller's transaction. */
export async function bootstrap(tx: Tx, email: string, orgName: string): Promise<{ user_id: string; email: string; password?: string; org_id: string }> {
  let password: string | undefined;
  let user_id = (await findUserByEmail(tx, email))?.id;
  if (!user_id) {
    password = generatePassword();
    user_id = (await createUser(tx, email, password)).id;
  }
  let org = await findOrganizationByName(tx, orgName);
  if (!org) org = await createOrganization(tx, orgName, user_id);
  else await tx.query(`insert into memberships (id, org_id, user_id, role) values (?, ?, ?, 'owner') on conflict do nothing`, [newId('mem'), org.id, user_id]);
  return { user_id, email, ...(password ? { password } : {}), org_id: org.id };
}

/** Later issues add operator commands here the same way. */
export function registerOperatorCommand(name: string, usage: string, run: OperatorCommand): void {
  OPERATOR_COMMANDS[name] = { usage, run };
}

export async function runOperator(db: Db, args: OperatorArgs): Promise<Record<string, unknown>> {
  const command = OPERATOR_COMMANDS[args.command];
  if (!command) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `Unknown operator command "${args.command}". Commands:\n  ${Object.values(OPERATOR_COMMANDS)
        .map((c) => c.usage)
        .join('\n  ')}`,
    );
  }
  return command.run(db, args);
}

export function operatorSocketPath(data_dir: string): string {
  return join(data_dir, 'operator.sock');
}

/** Serves operator commands on a local Unix socket (mode 0600) while the service owns the PGlite database. */
export async function serveOperatorSocket(db: Db, data_dir: string): Promise<Server> {
  const path = operatorSocketPath(data_dir);
  if (existsSync(path)) unlinkSync(path);
  const server = createServer((socket) => {
    let input = '';
    socket.on('data', async (chunk) => {
      input += chunk.toString();
      if (!input.endsWith('\n')) return;
      let reply: unknown;
      try {
        reply = { ok: true, result: await runOperator(db, JSON.parse(input) as OperatorArgs) };
      } catch (error) {
        reply = { ok: false, error: { code: (error as ServiceError).code ?? 'INTERNAL', message: (error as Error).message } };
      }
      socket.end(`${JSON.stringify(reply)}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const { chmodSync } = await import('node:fs');
  chmodSync(path, 0o600);
  return server;
}

/** Sends a command to a running service; null when no service listens. */
export async function sendOperatorCommand(data_dir: string, args: OperatorArgs): Promise<Record<string, unknown> | null> {
  const path = operatorSocketPath(data_dir);
  if (!existsSync(path)) return null;
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let output = '';
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? resolve(null) : reject(error)));
    socket.on('connect', () => socket.write(`${JSON.stringify(args)}\n`));
    socket.on('data', (chunk) => {
      output += chunk.toString();
    });
    socket.on('end', () => {
      const reply = JSON.parse(output) as { ok: boolean; result?: Record<string, unknown>; error?: { code: string; message: string } };
      if (reply.ok) resolve(reply.result!);
      else reject(new ServiceError(reply.error!.code as never, reply.error!.message));
    });
  });
}

// The rooms' commands: credits (grant-credits), sponsor provisioning (two-word names: institution, sponsor-admin,
// program fund, code issue/revoke), billing (pack bind/list/retire, purchase flagged/refunded) and provider keys (reseal).
Object.assign(OPERATOR_COMMANDS, CREDIT_OPERATOR_COMMANDS, SPONSOR_OPERATOR_COMMANDS, BILLING_OPERATOR_COMMANDS, KEY_OPERATOR_COMMANDS);
