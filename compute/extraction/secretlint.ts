// secretlint's recommended preset as a second secret screen beside domain/intake/screening.ts (ARCHITECTURE.md: secret patterns).
// Only rule ids and ranges are used; its ranges can span more than the value, so its hits are masked completely.
import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { maskValue, type ScreeningHit } from '../../domain/intake/screening.ts';
import type { FindingKind } from '../../domain/intake/sources.ts';

const RULE_KINDS: Array<[RegExp, FindingKind]> = [
  [/privatekey/i, 'private_key'],
  [/aws/i, 'aws_access_key'],
  [/gcp|azure|cloudflare|alibaba|digitalocean/i, 'cloud_key'],
  [/openai|anthropic|groq|huggingface|xai|gemini|mistral/i, 'ai_provider_key'],
  [/basicauth|database|password/i, 'password'],
];

function kindOf(rule_id: string, message_id: string): FindingKind {
  if (/aws/i.test(rule_id)) return /secret/i.test(message_id) ? 'aws_secret_key' : 'aws_access_key';
  for (const [pattern, kind] of RULE_KINDS) if (pattern.test(rule_id)) return kind;
  return 'token';
}

/** Runs the recommended preset over the lines; returns positioned, masked hits. */
export async function secretlintHits(lines: string[]): Promise<ScreeningHit[]> {
  const content = lines.join('\n');
  const result = await lintSource({
    source: { content, filePath: 'intake-source.txt', contentType: 'text' },
    options: {
      config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendedPreset }] },
      maskSecrets: true,
      noPhysicFilePath: true,
    },
  });
  const line_starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    line_starts.push(offset);
    offset += line.length + 1;
  }
  const lineOf = (index: number) => {
    let low = 0;
    let high = line_starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (line_starts[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  return result.messages.map((message) => {
    const [start, end] = message.range;
    const line_index = lineOf(start);
    const kind = kindOf(message.ruleId, message.messageId);
    const column_start = start - line_starts[line_index]!;
    const line_end = line_index === lineOf(Math.max(start, end - 1)) ? end - line_starts[line_index]! : lines[line_index]!.length;
    return { kind, line: line_index + 1, column_start, column_end: line_end, masked: maskValue(content.slice(start, end).slice(0, 24), 0, 0) };
  });
}
