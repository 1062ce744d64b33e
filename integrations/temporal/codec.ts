// Every Temporal payload leaves the service encrypted (ARCHITECTURE.md: How a request flows), so Temporal's database,
// its UI and `temporal workflow show` hold ciphertext: AES-256-GCM under a key derived from SERVICE_MASTER_KEY with HKDF
// and a purpose label (the master key itself never encrypts a payload). The payload names its key by id, so a key can
// rotate: encode uses the current key, decode picks the key by id among the current and the previous ones.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';

/** The `encoding` metadata of an encrypted payload (Temporal's convention for a codec's output). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const CIPHER_METADATA = 'encryption-cipher';
const CIPHER = 'aes-256-gcm';
const CIPHER_NAME = 'AES-256-GCM';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const MASTER_KEY_BYTES = 32;
/** HKDF `info` labels: one per purpose, so the payload key, its id and the operator token are unrelated to each other. */
const PAYLOAD_KEY_LABEL = 'crucible/temporal-payload/key/v1';
const KEY_ID_LABEL = 'crucible/temporal-payload/key-id/v1';
const OPERATOR_TOKEN_LABEL = 'crucible/temporal-codec/operator-token/v1';

/** A payload that cannot be decrypted; the message names the key id and what to do, never key material. */
export class PayloadDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadDecryptionError';
  }
}

type PayloadKey = { id: string; key: Buffer };

function derive(master_key: Buffer, label: string): Buffer {
  if (master_key.length !== MASTER_KEY_BYTES) throw new Error(`SERVICE_MASTER_KEY must be ${MASTER_KEY_BYTES} bytes to derive the Temporal payload key`);
  return Buffer.from(hkdfSync('sha256', master_key, Buffer.alloc(0), label, 32));
}

/** The payload key of a master key and its id (16 hex digits, derived separately: the id reveals nothing of the key). */
export function payloadKey(master_key: Buffer): PayloadKey {
  return { id: derive(master_key, KEY_ID_LABEL).subarray(0, 8).toString('hex'), key: derive(master_key, PAYLOAD_KEY_LABEL) };
}

/**
 * The credential of the codec endpoint (`Authorization: Bearer …`), derived from the master key: every process of a
 * deployment agrees on it without another secret to distribute, whoever can print it could read the master key anyway,
 * and it changes when the master key rotates (docs/decisions.md "Operator credential of the codec endpoint").
 */
export function operatorCodecToken(master_key: Buffer): string {
  return derive(master_key, OPERATOR_TOKEN_LABEL).toString('base64url');
}

/** Additional authenticated data: the scheme and the key id, so a payload relabelled with another id fails to open. */
function aad(key_id: string): Buffer {
  return Buffer.from(`${PAYLOAD_KEY_LABEL}\u0000${key_id}`, 'utf8');
}

/** The inner payload as bytes, without inflating it (a payload may be near Temporal's size limit): a format byte, the
 * metadata entries as length-prefixed name and value, then the data. */
const FRAME_FORMAT = 1;

function serialize(payload: Payload): Buffer {
  const entries = Object.entries(payload.metadata ?? {}).flatMap(([name, value]) => (value ? [[Buffer.from(name, 'utf8'), Buffer.from(value)] as const] : []));
  const parts: Buffer[] = [Buffer.from([FRAME_FORMAT]), u32(entries.length)];
  for (const [name, value] of entries) parts.push(u32(name.length), name, u32(value.length), value);
  parts.push(Buffer.from(payload.data ?? new Uint8Array()));
  return Buffer.concat(parts);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

function deserialize(bytes: Buffer): Payload {
  if (bytes[0] !== FRAME_FORMAT) throw new Error('unknown frame format');
  let at = 1;
  const take = (length: number): Buffer => {
    if (at + length > bytes.length) throw new Error('truncated frame');
    const out = bytes.subarray(at, at + length);
    at += length;
    return out;
  };
  const count = take(4).readUInt32BE();
  const metadata: Record<string, Uint8Array> = {};
  for (let index = 0; index < count; index++) {
    const name = take(take(4).readUInt32BE()).toString('utf8');
    metadata[name] = new Uint8Array(take(take(4).readUInt32BE()));
  }
  return { metadata, data: new Uint8Array(bytes.subarray(at)) };
}

function text(value: Uint8Array | null | undefined): string | undefined {
  return value ? Buffer.from(value).toString('utf8') : undefined;
}

/** Whether a payload carries this codec's encoding (the others pass through decode unchanged). */
export function isEncrypted(payload: Payload): boolean {
  return text(payload.metadata?.encoding) === ENCRYPTED_ENCODING;
}

export class EncryptionCodec implements PayloadCodec {
  readonly current: PayloadKey;
  private readonly keys: Map<string, Buffer>;

  /** `master_key`: the current SERVICE_MASTER_KEY; `previous_master_keys`: earlier ones still able to decode. */
  constructor(master_key: Buffer, previous_master_keys: readonly Buffer[] = []) {
    this.current = payloadKey(master_key);
    this.keys = new Map([this.current, ...previous_master_keys.map(payloadKey)].map(({ id, key }) => [id, key] as const));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncrypted(payload) ? this.open(payload) : payload));
  }

  private seal(payload: Payload): Payload {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(CIPHER, this.current.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(this.current.id));
    const sealed = Buffer.concat([nonce, cipher.update(serialize(payload)), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        encoding: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: Buffer.from(this.current.id),
        [CIPHER_METADATA]: Buffer.from(CIPHER_NAME),
      },
      data: new Uint8Array(sealed),
    };
  }

  private open(payload: Payload): Payload {
    const key_id = text(payload.metadata?.[KEY_ID_METADATA]) ?? '';
    const key = this.keys.get(key_id);
    if (!key) {
      throw new PayloadDecryptionError(
        `a Temporal payload is encrypted under key id "${key_id}", which is neither the current SERVICE_MASTER_KEY (key id ${this.current.id}) nor one of SERVICE_MASTER_KEY_PREVIOUS; add the master key it was written with to SERVICE_MASTER_KEY_PREVIOUS`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    try {
      if (data.length < NONCE_BYTES + TAG_BYTES) throw new Error('short');
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(key_id));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return deserialize(Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]));
    } catch {
      throw new PayloadDecryptionError(`a Temporal payload under key id "${key_id}" could not be decrypted: it was altered or truncated`);
    }
  }
}

/** The data converter of every Temporal client and worker the service creates: the default converter, then encryption. */
export function encryptedDataConverter(master_key: Buffer | null, previous_master_keys: readonly Buffer[] = []): { payloadCodecs: PayloadCodec[] } {
  if (!master_key)
    throw new Error('SERVICE_MASTER_KEY is not set: Temporal payloads cannot be encrypted (set it, or start with `crucible-server start`, which creates one)');
  return { payloadCodecs: [new EncryptionCodec(master_key, previous_master_keys)] };
}
