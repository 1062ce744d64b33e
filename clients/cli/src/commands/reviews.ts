// Concept and evidence reviews: start, show (optionally waiting), cancel, download.
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { type CrucibleClient, unwrap, unwrapAs } from '../../../sdk/src/index.ts';
import { fieldsPresent, failureLine, table } from '../output.ts';
import { type Any, type CommandContext, integer, type Poll, waitOptions, waitToEnd } from './context.ts';

function showReview(r: Any): string {
  const dimensions: Any[] = r.review?.dimensions ?? [];
  const claims = dimensions.flatMap((d: Any) => (d.evidence_claims ?? []).map((claim: Any) => ({ dimension: d.name ?? d.id, ...claim })));
  return [
    fieldsPresent([
      ['review', r.id],
      ['status', r.status],
      ['failure', failureLine(r)],
      ['credits used', r.credits_used ?? '-'],
    ]),
    dimensions.length
      ? table(dimensions, [
          { header: 'dimension', value: (d: Any) => d.name ?? d.id },
          { header: 'label', value: (d: Any) => d.label },
          { header: 'finding', value: (d: Any) => d.summary },
        ])
      : '',
    claims.length
      ? table(claims, [
          { header: 'dimension', value: (c: Any) => c.dimension },
          { header: 'evidence', value: (c: Any) => (c.supported ? 'supported' : `not supported${c.failed_check ? ` (${c.failed_check})` : ''}`) },
          { header: 'record', value: (c: Any) => c.record_id },
          { header: 'claim', value: (c: Any) => c.claim },
        ])
      : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** A read of a review; a --wait adds its long poll (`poll`). */
function readReview(client: CrucibleClient, review_id: string, poll: Poll = {}) {
  return client.GET('/v1/reviews/{review_id}', { path: { review_id }, ...poll });
}

export function registerReviews(program: Command, context: CommandContext): void {
  const review = program.command('review').description('Concept and evidence reviews');
  start(review, context);
  list(review, context);
  waitOptions(review.command('show <review_id>'), 'wait for it to end').action(async (id: string, o: Any) => {
    const client = context.client();
    const read = (poll: Poll) => readReview(client, id, poll);
    const value = o.wait ? await waitToEnd(context, 'review', `review ${id}`, read, (r) => r.status, o.timeout) : unwrapAs<Any>(await read({}));
    context.out().result(value, () => showReview(value));
  });
  review.command('cancel <review_id>').action(async (review_id: string) => {
    const r = unwrapAs<Any>(await context.client().POST('/v1/reviews/{review_id}/cancel', { path: { review_id } }));
    context.out().result(r, () => showReview(r));
  });
  review
    .command('download <review_id>')
    .requiredOption('--out <file>')
    .action(async (id: string, o: Any) => {
      const file = unwrap(await context.client().GET('/v1/reviews/{review_id}/download', { path: { review_id: id }, parseAs: 'text' }));
      writeFileSync(o.out, file as string);
      context.out().result({ written: o.out }, () => `Review with its citation record written to ${o.out}.`);
    });
}

function list(review: Command, context: CommandContext): void {
  review
    .command('list')
    .description("A project's reviews, newest first")
    .requiredOption('--project <project_id>')
    .option('--limit <n>', '1 to 200', integer('--limit'))
    .option('--offset <n>', 'rows to skip', integer('--offset'))
    .action(async (o: Any) => {
      const page = unwrapAs<Any>(
        await context.client().GET('/v1/projects/{project_id}/reviews', { path: { project_id: o.project }, query: { limit: o.limit, offset: o.offset } }),
      );
      context.out().result(page, () =>
        table(page.data ?? [], [
          { header: 'review', value: (r: Any) => r.id },
          { header: 'status', value: (r: Any) => r.status },
          { header: 'plan', value: (r: Any) => r.plan_id },
          { header: 'created', value: (r: Any) => r.created_at },
        ]),
      );
    });
}

function start(review: Command, context: CommandContext): void {
  const command = review
    .command('start')
    .requiredOption('--project <project_id>')
    .requiredOption('--plan <plan_id>')
    .option('--byok-provider <provider>')
    .option('--idempotency-key <key>');
  waitOptions(command, 'wait for the review to end, with progress on stderr').action(async (o: Any) => {
    const client = context.client();
    const body: Any = { plan_id: o.plan };
    if (o.byokProvider) body.byok_provider = o.byokProvider;
    let started = unwrapAs<Any>(
      await client.POST('/v1/projects/{project_id}/reviews', { path: { project_id: o.project }, body: body as never, idempotencyKey: o.idempotencyKey }),
    );
    if (o.wait) {
      const id = started.id;
      started = await waitToEnd(
        context,
        'review',
        `review ${id}`,
        (poll) => readReview(client, id, poll),
        (r) => r.status,
        o.timeout,
      );
    }
    context.out().result(started, () => showReview(started));
  });
}
