// A review's state in a sentence: its own module, so the projects screen (first bundle) can say it without
// loading the review page's chunk.

/** What a review is doing, in a sentence (the API's own descriptions name fields and endpoints). */
export const REVIEW_STATUS: Record<string, string> = {
  queued: 'Accepted; it starts in a moment.',
  searching: 'Searching the published literature (Europe PMC) and checking for retractions and corrections.',
  drafting: 'Drafting the 13 dimensions from your intake and the papers found.',
  verifying: 'Checking every evidence claim three ways.',
  succeeded: 'Finished; the review is below and can be downloaded.',
  failed: 'Stopped by a failure; nothing was charged.',
  canceled: 'Canceled; only the credits used until then were charged.',
};
