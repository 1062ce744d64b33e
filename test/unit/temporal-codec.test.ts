// The Temporal payload codec: AES-256-GCM under a key derived from the master key, the key named by id in the payload.
import { randomBytes } from 'node:crypto';
import { DefaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  CIPHER_METADATA,
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  KEY_ID_METADATA,
  operatorCodecToken,
  PayloadDecryptionError,
  payloadKey,
} from '../../integrations/temporal/codec.ts';

const converter = new DefaultPayloadConverter();
const SOURCE = 'Ward 7 discharge notes: Mrs Example, born 1950-02-03, NHS 943 476 5919';
const text = (value: Uint8Array | null | undefined) => Buffer.from(value ?? new Uint8Array()).toString('utf8');

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('the Temporal payload codec', () => {
  it('round-trips payloads and leaves no plaintext in what it encodes', async () => {
    const codec = new EncryptionCodec(randomBytes(32));
    const payloads = [converter.toPayload({ source: SOURCE, lines: [SOURCE, 'two'] }), converter.toPayload(null), converter.toPayload(undefined)];
    const encoded = await codec.encode(payloads);
    expect(encoded).toHaveLength(3);
    for (const payload of encoded) {
      expect(text(payload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(text(payload.metadata?.[KEY_ID_METADATA])).toBe(codec.current.id);
      expect(text(payload.metadata?.[CIPHER_METADATA])).toBe('AES-256-GCM');
      expect(Object.keys(payload.metadata ?? {}).sort()).toEqual([CIPHER_METADATA, KEY_ID_METADATA, 'encoding'].sort());
    }
    expect(Buffer.from(encoded[0]!.data!).includes(Buffer.from('Ward 7'))).toBe(false);
    const decoded = await codec.decode(encoded);
    expect(converter.fromPayload(decoded[0]!)).toEqual({ source: SOURCE, lines: [SOURCE, 'two'] });
    expect(converter.fromPayload(decoded[1]!)).toBeNull();
    expect(converter.fromPayload(decoded[2]!)).toBeUndefined();
    expect(await codec.encode([])).toEqual([]);
  });

  it("adds a constant overhead, not a share of the payload: a payload near Temporal's size limit stays near it", async () => {
    const codec = new EncryptionCodec(randomBytes(32));
    const large = converter.toPayload('x'.repeat(1024 * 1024));
    const [encoded] = await codec.encode([large]);
    expect(encoded!.data!.length - large.data!.length).toBeLessThan(128);
    expect(converter.fromPayload((await codec.decode([encoded!]))[0]!)).toBe('x'.repeat(1024 * 1024));
  });

  it('uses a fresh nonce per payload', async () => {
    const codec = new EncryptionCodec(randomBytes(32));
    const [a, b] = await codec.encode([converter.toPayload(SOURCE), converter.toPayload(SOURCE)]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('passes through payloads it did not encode, so histories recorded before encryption still replay', async () => {
    const codec = new EncryptionCodec(randomBytes(32));
    const plain = converter.toPayload({ recorded: 'before encryption' });
    const [decoded] = await codec.decode([plain]);
    expect(decoded).toBe(plain);
  });

  it('refuses a payload of another master key with a message naming the key id and the fix, and no key material', async () => {
    const master = randomBytes(32);
    const [encoded] = await new EncryptionCodec(master).encode([converter.toPayload(SOURCE)]);
    const other = randomBytes(32);
    const error = await rejection(new EncryptionCodec(other).decode([encoded!]));
    expect(error).toBeInstanceOf(PayloadDecryptionError);
    expect(error.message).toContain(`key id "${payloadKey(master).id}"`);
    expect(error.message).toContain('SERVICE_MASTER_KEY_PREVIOUS');
    for (const secret of [master, other, payloadKey(master).key, payloadKey(other).key]) {
      expect(error.message).not.toContain(secret.toString('base64'));
      expect(error.message).not.toContain(secret.toString('hex'));
    }
  });

  it('refuses an altered payload and one relabelled with another key id', async () => {
    const master = randomBytes(32);
    const previous = randomBytes(32);
    const codec = new EncryptionCodec(master, [previous]);
    const [encoded] = await codec.encode([converter.toPayload(SOURCE)]);
    const flipped = Buffer.from(encoded!.data!);
    flipped[20]! ^= 1;
    expect(await rejection(codec.decode([{ ...encoded!, data: flipped }]))).toBeInstanceOf(PayloadDecryptionError);
    const relabelled = { ...encoded!, metadata: { ...encoded!.metadata, [KEY_ID_METADATA]: Buffer.from(payloadKey(previous).id) } };
    expect((await rejection(codec.decode([relabelled]))).message).toMatch(/could not be decrypted: it was altered or truncated/);
    const truncated = { ...encoded!, data: Buffer.from(encoded!.data!).subarray(0, 10) };
    expect(await rejection(codec.decode([truncated]))).toBeInstanceOf(PayloadDecryptionError);
  });

  it('rotates: a new master key encodes, the previous one still decodes what it wrote', async () => {
    const old_master = randomBytes(32);
    const new_master = randomBytes(32);
    const [old_payload] = await new EncryptionCodec(old_master).encode([converter.toPayload('written before rotation')]);
    const rotated = new EncryptionCodec(new_master, [old_master]);
    const [new_payload] = await rotated.encode([converter.toPayload('written after rotation')]);
    expect(text(new_payload!.metadata?.[KEY_ID_METADATA])).toBe(payloadKey(new_master).id);
    expect(payloadKey(new_master).id).not.toBe(payloadKey(old_master).id);
    const decoded = await rotated.decode([old_payload!, new_payload!]);
    expect(decoded.map((payload) => converter.fromPayload(payload))).toEqual(['written before rotation', 'written after rotation']);
    // Once the previous key is dropped, its payloads are refused by id.
    expect((await rejection(new EncryptionCodec(new_master).decode([old_payload!]))).message).toContain(payloadKey(old_master).id);
  });

  it('derives the payload key, its id and the operator token apart from each other and from the master key', () => {
    const master = randomBytes(32);
    const { id, key } = payloadKey(master);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(key.equals(master)).toBe(false);
    expect(key.toString('hex')).not.toContain(id);
    expect(operatorCodecToken(master)).not.toBe(key.toString('base64url'));
    expect(operatorCodecToken(master)).toBe(operatorCodecToken(Buffer.from(master)));
    expect(payloadKey(master)).toEqual(payloadKey(Buffer.from(master)));
  });
});
