// The codec endpoint of the Temporal UI and CLI (Temporal's remote codec protocol): `POST …/encode` and `…/decode` take
// `{payloads: [...]}` with proto-JSON payloads (every bytes field base64) and answer the same shape, so an operator's UI
// shows decrypted histories while Temporal itself holds ciphertext. Operators only: the credential is the operator codec
// token (integrations/temporal/codec.ts, printed by `crucible-server operator temporal-codec-token`), sent as
// `Authorization: Bearer …` (the CLI's --codec-auth) or as a path segment (the UI, which cannot add a header without
// its own sign-in); browsers are let in from the configured Temporal UI origins only (CORS). It speaks Temporal's
// protocol, not the product API's, so it is mounted beside the router and left out of the OpenAPI document
// (docs/decisions.md "Codec endpoint").
import type { Context, Next } from 'koa';
import { Type } from 'typebox';
import { ServiceError } from '../domain/errors.ts';
import { EncryptionCodec, operatorCodecToken, PayloadDecryptionError } from '../integrations/temporal/codec.ts';
import { safeEqualBytes, sha256Bytes } from '../store/secrets.ts';
import type { AppDeps, State } from './context.ts';
import { readJsonBody, schemaErrors } from './http/request.ts';

export const CODEC_PATH_PREFIX = '/v1/operator/temporal-codec';
/** A history page's payloads, base64 in JSON: Temporal's own payload limit is 2 MiB each. */
export const CODEC_BODY_BYTES_MAX = 8 * 1024 * 1024;
export const CODEC_PAYLOADS_MAX = 1_000;
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/_-]*={0,2}$', maxLength: CODEC_BODY_BYTES_MAX });
const CodecBody = Type.Object(
  {
    payloads: Type.Array(Type.Object({ metadata: Type.Optional(Type.Record(Type.String({ maxLength: 256 }), Base64)), data: Type.Optional(Base64) }), {
      maxItems: CODEC_PAYLOADS_MAX,
    }),
  },
  { additionalProperties: true },
);
type JsonPayload = { metadata?: Record<string, string>; data?: string };

/** `/encode`, `/decode`, and the same under `/t/{token}` (the UI's form, where the token stands in for the header). */
const CODEC_ROUTE = /^\/v1\/operator\/temporal-codec(?:\/t\/([A-Za-z0-9_-]{1,128}))?\/(encode|decode)\/?$/;

function fromJson(payload: JsonPayload) {
  const metadata: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(payload.metadata ?? {})) metadata[name] = new Uint8Array(Buffer.from(value, 'base64'));
  return { metadata, data: new Uint8Array(Buffer.from(payload.data ?? '', 'base64')) };
}

function toJson(payload: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload.metadata ?? {})) if (value) metadata[name] = Buffer.from(value).toString('base64');
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

/** CORS: only the configured Temporal UI origins get the headers a browser needs; others are left without them. */
function allowOrigin(deps: AppDeps, ctx: Context): boolean {
  const origin = ctx.get('origin');
  if (!origin || !deps.config.temporal_ui_origins.includes(origin)) return false;
  ctx.set('Access-Control-Allow-Origin', origin);
  ctx.set('Access-Control-Allow-Credentials', 'true');
  ctx.vary('Origin');
  return true;
}

function requireOperator(deps: AppDeps, ctx: Context, path_token: string | undefined): void {
  const header = ctx.get('authorization');
  const presented = path_token ?? (header.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : '');
  const master_key = deps.config.master_key;
  // Digests compared, so the comparison takes the same time whatever the length presented.
  if (!presented || !master_key || !safeEqualBytes(sha256Bytes(presented), sha256Bytes(operatorCodecToken(master_key)))) {
    throw new ServiceError(
      'UNAUTHENTICATED',
      'The codec endpoint needs the operator codec token: send "Authorization: Bearer <token>" (print it with: crucible-server operator temporal-codec-token).',
    );
  }
}

async function answer(deps: AppDeps, ctx: Context, direction: 'encode' | 'decode'): Promise<void> {
  const namespace = ctx.get('x-namespace');
  if (namespace && namespace !== deps.config.temporal_namespace) {
    throw new ServiceError('FORBIDDEN', `This codec serves the Temporal namespace "${deps.config.temporal_namespace}", not "${namespace}".`, {
      reason: 'other_namespace',
    });
  }
  const body = await readJsonBody(ctx, CODEC_BODY_BYTES_MAX, 'CODEC_BODY_BYTES_MAX');
  const problems = schemaErrors(CodecBody, body);
  if (problems.length > 0) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      `The body must be {"payloads": [...]} with base64 metadata values and data, at most ${CODEC_PAYLOADS_MAX} payloads.`,
      problems,
    );
  }
  const codec = new EncryptionCodec(deps.config.master_key!, deps.config.master_keys_previous);
  const payloads = (body as { payloads: JsonPayload[] }).payloads.map(fromJson);
  try {
    const out = direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { payloads: out.map(toJson) };
  } catch (error) {
    if (error instanceof PayloadDecryptionError) throw new ServiceError('VALIDATION_FAILED', error.message, [{ path: '/payloads', message: error.message }]);
    throw error;
  }
}

/** Mounted before the router: answers the codec paths (and their CORS preflight), passes every other request on. */
export function operatorCodec(deps: AppDeps) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!ctx.path.startsWith(CODEC_PATH_PREFIX)) return next();
    const matched = CODEC_ROUTE.exec(ctx.path);
    if (!matched) {
      // A mistyped path may still carry the token: neither the answer nor the log repeats what follows the prefix.
      (ctx.state as State).log_path = `${CODEC_PATH_PREFIX}/…`;
      throw new ServiceError('NOT_FOUND', `No route ${ctx.method} ${CODEC_PATH_PREFIX}/…; the codec answers ${CODEC_PATH_PREFIX}/encode and /decode.`);
    }
    const [, path_token, direction] = matched as unknown as [string, string | undefined, 'encode' | 'decode'];
    // The token in the path is a credential: the request log names the template only.
    (ctx.state as State).log_path = `${CODEC_PATH_PREFIX}${path_token ? '/t/{token}' : ''}/${direction}`;
    // A browser says where it calls from; only the Temporal UI may (the CLI and scripts send no Origin).
    if (ctx.get('origin') && !allowOrigin(deps, ctx)) {
      throw new ServiceError('FORBIDDEN', 'This origin may not call the codec endpoint; set CRUCIBLE_TEMPORAL_UI_ORIGIN to the Temporal UI origin.', {
        reason: 'origin_not_allowed',
      });
    }
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
      ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST, OPTIONS');
      throw new ServiceError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on the codec endpoint; allowed: POST, OPTIONS.`, {
        allowed: ['POST', 'OPTIONS'],
      });
    }
    requireOperator(deps, ctx, path_token);
    await answer(deps, ctx, direction);
  };
}
