// Provider keys at rest (spec: Provider key): AES-256-GCM under SERVICE_MASTER_KEY, which lives outside the database.
// A fresh 96-bit nonce per key; the organization id and key id are additional authenticated data, so a ciphertext
// copied to another row or organization fails to decrypt instead of yielding another tenant's key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const PROVIDER_KEY_CIPHER = 'aes-256-gcm';
export const PROVIDER_KEY_NONCE_BYTES = 12;
export const PROVIDER_KEY_TAG_BYTES = 16;
export const MASTER_KEY_BYTES = 32;
/** Versioned so a future scheme (another AAD layout, key rotation) can be told apart. */
const AAD_PREFIX = 'crucible/provider-key/v1';

export type SealedKey = { ciphertext: Buffer; nonce: Buffer; auth_tag: Buffer };
export type KeyBinding = { org_id: string; key_id: string };

/** Raised when a stored key cannot be opened: never returns garbage, never carries key material. */
export class ProviderKeyDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderKeyDecryptionError';
  }
}

function aad(binding: KeyBinding): Buffer {
  return Buffer.from(`${AAD_PREFIX}\u0000${binding.org_id}\u0000${binding.key_id}`, 'utf8');
}

function checkMasterKey(master_key: Buffer | null): Buffer {
  if (!master_key || master_key.length !== MASTER_KEY_BYTES) {
    throw new ProviderKeyDecryptionError(`SERVICE_MASTER_KEY is not set or is not ${MASTER_KEY_BYTES} bytes; provider keys cannot be sealed or opened`);
  }
  return master_key;
}

export function sealProviderKey(master_key: Buffer | null, binding: KeyBinding, api_key: string): SealedKey {
  return sealUnderMasterKey(checkMasterKey(master_key), aad(binding), api_key);
}

/**
 * Opens a sealed key under the current master key, then under each previous one (SERVICE_MASTER_KEY_PREVIOUS, after a
 * rotation), and says whether a previous one opened it (so the caller can seal it again under the current one). A key
 * none of them sealed, another row's binding or an altered column throws ProviderKeyDecryptionError.
 */
export function openProviderKey(
  master_key: Buffer | null,
  binding: KeyBinding,
  sealed: SealedKey,
  previous: readonly Buffer[] = [],
): { api_key: string; under_previous: boolean } {
  const key = checkMasterKey(master_key);
  if (sealed.nonce.length !== PROVIDER_KEY_NONCE_BYTES || sealed.auth_tag.length !== PROVIDER_KEY_TAG_BYTES) {
    throw new ProviderKeyDecryptionError(`provider key ${binding.key_id} is stored with a malformed nonce or tag; store the key again`);
  }
  const opened = openUnderMasterKeys(key, previous, aad(binding), sealed);
  if (opened === null) {
    // GCM authentication failed under every key held: the one message that fits every cause, without echoing anything stored.
    throw new ProviderKeyDecryptionError(
      `provider key ${binding.key_id} of ${binding.org_id} could not be decrypted: neither SERVICE_MASTER_KEY nor a key in SERVICE_MASTER_KEY_PREVIOUS is the key it was stored under, or the stored row was altered; add the key it was stored under to SERVICE_MASTER_KEY_PREVIOUS or store the provider key again`,
    );
  }
  return { api_key: opened.bytes.toString('utf8'), under_previous: opened.under_previous };
}

/**
 * The sealing under the master key that provider keys use, for other private text at rest (quarantined sources): the
 * caller's additional authenticated data names the purpose and binds the row, so a ciphertext moved to another purpose,
 * row or organization fails to open.
 */
export function sealUnderMasterKey(master_key: Buffer, additional_data: Buffer, plaintext: string | Uint8Array): SealedKey {
  const nonce = randomBytes(PROVIDER_KEY_NONCE_BYTES);
  const cipher = createCipheriv(PROVIDER_KEY_CIPHER, checkMasterKey(master_key), nonce, { authTagLength: PROVIDER_KEY_TAG_BYTES });
  cipher.setAAD(additional_data);
  const ciphertext = Buffer.concat([typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext), cipher.final()]);
  return { ciphertext, nonce, auth_tag: cipher.getAuthTag() };
}

/** The plaintext, or null when the key, the additional data or the stored bytes do not match (GCM authentication failed). */
export function openUnderMasterKey(master_key: Buffer, additional_data: Buffer, sealed: SealedKey): string | null {
  return openBytesUnderMasterKey(master_key, additional_data, sealed)?.toString('utf8') ?? null;
}

/** As openUnderMasterKey, for sealed bytes (uploaded files staged for a worker): the bytes, or null. */
export function openBytesUnderMasterKey(master_key: Buffer, additional_data: Buffer, sealed: SealedKey): Buffer | null {
  try {
    const decipher = createDecipheriv(PROVIDER_KEY_CIPHER, checkMasterKey(master_key), sealed.nonce, { authTagLength: PROVIDER_KEY_TAG_BYTES });
    decipher.setAAD(additional_data);
    decipher.setAuthTag(sealed.auth_tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
  } catch {
    return null;
  }
}

/** Sealed bytes opened under the current master key, then each previous one; null when none of them opens them. */
export function openUnderMasterKeys(
  master_key: Buffer,
  previous: readonly Buffer[],
  additional_data: Buffer,
  sealed: SealedKey,
): { bytes: Buffer; under_previous: boolean } | null {
  const current = openBytesUnderMasterKey(master_key, additional_data, sealed);
  if (current) return { bytes: current, under_previous: false };
  for (const key of previous) {
    const opened = openBytesUnderMasterKey(key, additional_data, sealed);
    if (opened) return { bytes: opened, under_previous: true };
  }
  return null;
}
