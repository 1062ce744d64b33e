// A failed or canceled step in the app's own words: the sentence per failure code, the raw message kept for the
// technical details, and no failure message anywhere promising a retry that will not come.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastAttemptWords } from '../../domain/ai/attempts.ts';
import { AI_CALL_FAILURE_TYPES, AI_FAILURE_TYPES } from '../../domain/ai/call.ts';
import { failureSentence, LITERATURE_UNREACHABLE_SENTENCE, stepEndInWords } from '../../clients/sdk/src/words/failureWords.ts';
import { LITERATURE_FAILURE_TYPES } from '../../domain/reviews/literature.ts';
import { failureForStatus, failureForTimeout, failureForTransport } from '../../integrations/ai/common.ts';

describe('failures in words', () => {
  it('says a literature outage in the app’s own sentence and keeps the code and raw detail apart', () => {
    const raw = 'Europe PMC could not be reached after 4 attempts: TypeError: getaddrinfo ENOTFOUND www.ebi.ac.uk';
    const words = stepEndInWords({ status: 'failed', failure: { code: 'LITERATURE_UNAVAILABLE', message: raw } });
    expect(words).toEqual({
      sentence: "The literature service can't be reached from this server. Nothing was charged.",
      code: 'LITERATURE_UNAVAILABLE',
      detail: raw,
    });
    expect(LITERATURE_UNREACHABLE_SENTENCE).toBe(words.sentence);
  });

  it('has a sentence for every typed failure of the AI providers and the literature service', () => {
    for (const code of [...Object.values(AI_FAILURE_TYPES), ...Object.values(AI_CALL_FAILURE_TYPES), ...Object.values(LITERATURE_FAILURE_TYPES)]) {
      const sentence = failureSentence(code);
      expect(sentence, code).toMatch(/^[A-Z].*\.$/);
      expect(sentence, code).not.toMatch(/retried|retry/i);
    }
  });

  it('keeps the recorded message for a failure that has no sentence of its own (a rule the step broke)', () => {
    const failure = { code: 'WORLD_LIMIT_EXCEEDED', message: 'The world made more than 2,000,000 events in one replication.' };
    expect(stepEndInWords({ status: 'failed', failure })).toEqual({ sentence: failure.message, code: failure.code, detail: failure.message });
  });

  it('says a canceled step was canceled, with what was charged', () => {
    expect(stepEndInWords({ status: 'canceled', failure: null }).sentence).toBe(
      'Canceled: it was stopped before it finished. Only what it used until then was charged.',
    );
  });

  it('says a provider failure in words, naming the provider, never with an error class or a promise of a retry', () => {
    const unavailable = failureForStatus('openai', 503, 'overloaded', 'sk-test-0000');
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    const unreachable = failureForTransport('anthropic', refused);
    const unknown = failureForTransport('google', new TypeError('fetch failed'));
    const slow = failureForTimeout('openai', 120_000);
    expect(unavailable.message).toBe('OpenAI failed on its side (HTTP 503): overloaded.');
    expect(unreachable.message).toBe('Anthropic could not be reached from this server: the connection was refused.');
    expect(unknown.message).toBe('Google could not be reached from this server: the connection failed.');
    expect(slow.message).toBe('OpenAI did not answer within 2 minutes.');
    for (const failure of [unavailable, unreachable, unknown, slow]) expect(failure.message).not.toMatch(/Error\b|retr/);
  });

  it('says what the last attempt of a model call met, how often the provider was asked, that nothing was charged and what to do', () => {
    expect(lastAttemptWords({ last: 'OpenAI did not answer within 2 minutes.', attempts: 4, because: 'attempts_spent', schedule_to_close_ms: 600_000 })).toBe(
      'OpenAI did not answer within 2 minutes. It was asked 4 times and gave no answer. Nothing was charged. Try again later.',
    );
    expect(
      lastAttemptWords({ last: 'Google was too busy to answer (rate limited, HTTP 429).', attempts: 2, because: 'deadline', schedule_to_close_ms: 600_000 }),
    ).toBe(
      'Google was too busy to answer (rate limited, HTTP 429). It was asked twice in the 10 minutes a model call may take and gave no answer. Nothing was charged. Try again later.',
    );
  });

  it('finds no "will be retried" in the failure messages of activities, integrations, workflows and domain', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && /will be retried/.test(readFileSync(path, 'utf8'))) offenders.push(path);
      }
    };
    for (const room of ['activities', 'integrations', 'workflows', 'domain', 'api']) walk(join(import.meta.dirname, '..', '..', room));
    expect(offenders).toEqual([]);
  });
});
