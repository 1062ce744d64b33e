// Review states and their transitions (spec: States and transitions — review states "not shown"; decided here and
// documented in docs/review.md). queued → searching → drafting → verifying → succeeded; any unfinished state →
// failed or canceled. Finished states never change.
export const REVIEW_STATES = ['queued', 'searching', 'drafting', 'verifying', 'succeeded', 'failed', 'canceled'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

export const REVIEW_NEXT: Record<ReviewState, readonly ReviewState[]> = {
  queued: ['searching', 'failed', 'canceled'],
  searching: ['drafting', 'failed', 'canceled'],
  drafting: ['verifying', 'failed', 'canceled'],
  verifying: ['succeeded', 'failed', 'canceled'],
  succeeded: [],
  failed: [],
  canceled: [],
};

/** The states with no move out: a finished review never changes. */
export const FINISHED_REVIEW_STATES: readonly ReviewState[] = REVIEW_STATES.filter((state) => REVIEW_NEXT[state].length === 0);

export function canMoveReview(from: ReviewState, to: ReviewState): boolean {
  return REVIEW_NEXT[from].includes(to);
}

export function isFinished(state: ReviewState): boolean {
  return FINISHED_REVIEW_STATES.includes(state);
}
