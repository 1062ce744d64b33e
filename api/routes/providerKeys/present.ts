// Provider keys as the API shows them: never the key, only its last four characters.
import type { Static } from 'typebox';
import type { ProviderKeyCreated } from '../../../domain/contracts/providerKeys.ts';
import type { ProviderKeyView } from '../../../store/providerKeys/keys.ts';

/** The answer to a creation: the stored key without its revocation (a new key is live). */
export function presentCreatedKey(key: ProviderKeyView): Static<typeof ProviderKeyCreated> {
  return { id: key.id, provider: key.provider, label: key.label, last4: key.last4, created_at: key.created_at };
}
