// Anthropic adapter: Messages API with one tool whose input_schema is the schema, and tool_choice forcing it.
import Anthropic from '@anthropic-ai/sdk';
import {
  type AdapterRequest,
  NAMED_TOOL_PARAMETERS,
  failureForStatus,
  failureForTimeout,
  failureForTransport,
  outputInvalid,
  type RawStructuredReply,
} from './common.ts';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export async function callAnthropic(request: AdapterRequest): Promise<RawStructuredReply> {
  const client = new Anthropic({
    apiKey: request.api_key,
    baseURL: request.base_url ?? ANTHROPIC_DEFAULT_BASE_URL,
    maxRetries: 0, // Temporal owns retrying
    timeout: request.timeout_ms, // explicit, so the SDK does not refuse large max_tokens without streaming
    logLevel: 'off',
  });
  let message: Anthropic.Messages.Message;
  try {
    message = await client.messages.create(
      {
        model: request.model,
        max_tokens: request.max_output_tokens,
        system: request.system,
        messages: [{ role: 'user', content: request.prompt }],
        tools: [
          {
            name: request.schema_name,
            description: `Return the answer as ${request.schema_name}.`,
            input_schema: request.json_schema as Anthropic.Messages.Tool.InputSchema,
          },
          // The registry's tools the model may name; tool_choice below still makes it answer with the schema's tool.
          ...request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: NAMED_TOOL_PARAMETERS })),
        ],
        tool_choice: { type: 'tool', name: request.schema_name, disable_parallel_tool_use: true },
      },
      { signal: request.abort_signal },
    );
  } catch (error) {
    if (error instanceof Anthropic.APIUserAbortError) throw error;
    if (error instanceof Anthropic.APIConnectionTimeoutError) throw failureForTimeout('anthropic', request.timeout_ms);
    if (error instanceof Anthropic.APIError && typeof error.status === 'number') {
      const body = error.error as { error?: { message?: unknown } } | undefined;
      const said = typeof body?.error?.message === 'string' ? body.error.message : '';
      throw failureForStatus('anthropic', error.status, said, request.api_key, error.headers);
    }
    throw failureForTransport('anthropic', error);
  }
  if (message.stop_reason === 'max_tokens') throw outputInvalid('anthropic', 'the reply was cut off at max_output_tokens');
  const block = message.content.find((item) => item.type === 'tool_use' && item.name === request.schema_name);
  if (block?.type !== 'tool_use') throw outputInvalid('anthropic', `the reply did not call the ${request.schema_name} tool`);
  return {
    value: block.input,
    usage: { input_tokens: message.usage.input_tokens ?? 0, output_tokens: message.usage.output_tokens ?? 0 },
  };
}
