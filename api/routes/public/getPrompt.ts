import { Type } from 'typebox';
import { PROMPT_ID_PATTERN } from '../../../domain/contracts/public.ts';
import { ServiceError } from '../../../domain/errors.ts';
import { PROMPTS } from '../../../domain/prompts/registry.ts';
import { route, type RouteDef } from '../../registry.ts';

export function getPromptRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/v1/prompts/{prompt_id}',
    operation_id: 'getPrompt',
    summary: 'One prompt, whole, so your own assistant can draft the same way',
    tag: 'public',
    auth: 'public',
    params: { prompt_id: Type.String({ pattern: PROMPT_ID_PATTERN }) },
    responses: { 200: { description: 'prompt' } },
    handler: async (ctx, { params }) => {
      const prompt = PROMPTS.find((p) => p.id === params.prompt_id);
      if (!prompt) throw new ServiceError('NOT_FOUND', `No prompt ${params.prompt_id}; see /v1/prompts for the list.`);
      ctx.body = prompt;
    },
  });
}
