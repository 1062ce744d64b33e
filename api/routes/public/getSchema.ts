import { CONTRACTS } from '../../../domain/contracts/registry.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { route, type RouteDef } from '../../registry.ts';

export function getSchemaRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/v1/schemas/{name}',
    operation_id: 'getSchema',
    summary: 'The JSON Schema of one named contract',
    tag: 'public',
    auth: 'public',
    responses: { 200: { description: 'JSON Schema', content_type: 'application/schema+json' } },
    handler: async (ctx, { params }) => {
      const contract = CONTRACTS.find((c) => c.name === params.name);
      if (!contract) throw new ServiceError('NOT_FOUND', `No contract named ${params.name}; see /v1/schemas for the list.`);
      ctx.body = {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: contract.name,
        'x-contract-version': contract.version,
        ...(contract.experimental ? { 'x-experimental': true } : {}),
        ...JSON.parse(JSON.stringify(contract.schema)),
      };
    },
  });
}
