// Operator command for a master key rotation (docs/deploy.md "Rotating SERVICE_MASTER_KEY"):
//   provider-keys reseal   seals every live provider key still under a key of SERVICE_MASTER_KEY_PREVIOUS again under
//                          SERVICE_MASTER_KEY, and counts what it found; no key material is printed.
// Server side like every operator command; operator.ts merges this list into its own.
import { ServiceError } from '../domain/errors.ts';
import { resealProviderKeys } from '../store/providerKeys/keys.ts';
import { loadConfig } from './config.ts';
import type { OperatorCommands } from './operator-command.ts';

export const KEY_OPERATOR_COMMANDS: OperatorCommands = {
  'provider-keys reseal': {
    usage: 'provider-keys reseal   (after a master key rotation: seals the live provider keys again under SERVICE_MASTER_KEY)',
    async run(db, args) {
      const config = args.config ?? loadConfig();
      if (!config.master_key) throw new ServiceError('VALIDATION_FAILED', 'SERVICE_MASTER_KEY is not set: there is no key to seal provider keys under.');
      const result = await db.transaction((tx) => resealProviderKeys(tx, config.master_key, config.master_keys_previous));
      return {
        resealed: result.resealed,
        already_current: result.current,
        unreadable: result.unreadable.length,
        ...(result.unreadable.length > 0
          ? {
              unreadable_keys: result.unreadable.map((key) => `${key.key_id} (${key.org_id})`).join(', '),
              note: 'These keys open under no key this process holds: add the key they were stored under to SERVICE_MASTER_KEY_PREVIOUS and run this again, or have their organizations store them again.',
            }
          : {}),
      };
    },
  },
};
