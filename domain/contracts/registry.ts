// The named contracts published at /v1/schemas (spec: Versioning). Each room adds its contract here as it comes to exist.
import type { TSchema } from 'typebox';

export type ContractEntry = { name: string; version: string; experimental?: boolean; description: string; schema: TSchema };

export const CONTRACTS: ContractEntry[] = [];

export function registerContract(entry: ContractEntry): void {
  if (!CONTRACTS.some((c) => c.name === entry.name)) CONTRACTS.push(entry);
}
