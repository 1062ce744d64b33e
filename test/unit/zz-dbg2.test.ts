import { it } from 'vitest';
import { extractSources } from '/work/wt/drafter/compute/extraction.ts';
import { draftIntakeOffline } from '/work/wt/drafter/domain/intake/offlineDraft.ts';
import { buildPdf } from '/work/wt/drafter/test/support/corpus.ts';
import { caseText, PDF_CASES, PROSE_CASES, wrapWords } from '/work/wt/drafter/test/support/drafterCorpus.ts';
it('dbg', async () => {
  for (const c of [...PROSE_CASES, ...PDF_CASES]) {
    const lines = 'title' in c ? [(c as any).title, ...wrapWords(caseText(c), (c as any).wrap_chars)] : [caseText(c)];
    const spec = draftIntakeOffline([{ id: 'src_a', name: 'x', status: 'processed', lines: (c as any).lines ? caseText(c).split('\n') : lines }]);
    const exp = c.sentences.filter((s) => s.fields.includes('care_setting')).map((s) => s.text.slice(0, 60));
    console.log(`${c.name}\n  GOT ${spec.care_setting?.text}\n  EXP ${exp.join(' || ')}\n  ${spec.drafted_by?.summary}`);
    const int = spec.intended_users.map((s) => s.text.slice(0, 50)); const ci = c.sentences.filter((s) => s.fields.includes('intended_users')).map((s) => s.text.slice(0, 50));
    if (JSON.stringify(int) !== JSON.stringify(ci)) console.log('  USERS', int, ci);
    const cl = spec.claims.map((s) => s.text.slice(0, 50)); const ce = c.sentences.filter((s) => s.fields.includes('claims')).map((s) => s.text.slice(0, 50));
    if (JSON.stringify(cl) !== JSON.stringify(ce)) console.log('  CLAIMS', cl, ce);
  }
});
