// The world as JSON (the editor's Advanced tab): CodeMirror 6 with completion from the published WorldSpec schema
// (codemirror-json-schema) and the service's own validation as lint diagnostics, each at the place its JSON pointer
// names (the nearest part of the document that exists), so a problem is one click from its line.
import { autocompletion } from '@codemirror/autocomplete';
import { json, jsonLanguage, jsonParseLinter } from '@codemirror/lang-json';
import { type Diagnostic, lintGutter, linter } from '@codemirror/lint';
import { Annotation, type EditorState } from '@codemirror/state';
import { EditorView, basicSetup } from 'codemirror';
import { getJsonPointers, jsonCompletion, stateExtensions } from 'codemirror-json-schema';
import type { JSONSchema7 } from 'json-schema';
import { useEffect, useRef } from 'react';
import { client, unwrap } from '../client.ts';
import type { WorldValidation } from '../types.ts';
import { type World, placeInWords, problemText } from './model.ts';

export type Problem = WorldValidation['problems'][number];
/** How long typing pauses before the service checks the document again. */
const LINT_DELAY_MS = 600;
const fromOutside = Annotation.define<boolean>();

/** The document range of a pointer, or of its nearest ancestor that exists (a missing field is reported at its parent). */
export function rangeOfPointer(state: EditorState, pointer: string): { from: number; to: number } {
  const pointers = getJsonPointers(state, 'json4');
  let at = pointer;
  for (;;) {
    const found = pointers.get(at);
    if (found) return 'valueFrom' in found ? { from: found.keyFrom, to: found.valueTo } : { from: found.keyFrom, to: found.keyTo };
    if (at === '') return { from: 0, to: Math.min(1, state.doc.length) };
    at = at.slice(0, at.lastIndexOf('/'));
  }
}

/** The service's problems for the document, as diagnostics at their places; a JSON syntax error first. */
function serviceLinter(onProblems: (problems: Problem[] | null) => void) {
  const syntax = jsonParseLinter();
  return linter(
    async (view) => {
      const syntaxProblems = syntax(view);
      if (syntaxProblems.length > 0) {
        onProblems(null);
        return syntaxProblems.map((d) => ({ ...d, message: `This is not valid JSON here: ${d.message}` }));
      }
      let world: Record<string, unknown>;
      try {
        world = JSON.parse(view.state.doc.toString());
      } catch {
        return [];
      }
      const result = await client.POST('/v1/world-specs/validate', { body: world }).then(unwrap);
      onProblems(result.problems);
      return result.problems.map((problem): Diagnostic => {
        const range = rangeOfPointer(view.state, problem.pointer);
        return {
          ...range,
          severity: 'error',
          source: placeInWords(world as World, problem.pointer),
          message: problemText(world as World, { message: problem.message }),
        };
      });
    },
    { delay: LINT_DELAY_MS },
  );
}

export default function JsonEditor({
  value,
  onChange,
  schema,
  onProblems,
}: {
  value: string;
  onChange(text: string): void;
  schema: JSONSchema7 | null;
  onProblems(problems: Problem[] | null): void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onProblems });
  callbacks.current = { onChange, onProblems };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is created once per schema; the value is synced below
  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      doc: value,
      extensions: [
        basicSetup,
        json(),
        ...(schema ? [stateExtensions(schema), jsonLanguage.data.of({ autocomplete: jsonCompletion() })] : []),
        autocompletion(),
        lintGutter(),
        serviceLinter((problems) => callbacks.current.onProblems(problems)),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': 'The world as JSON' }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((t) => t.annotation(fromOutside))) callbacks.current.onChange(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    return () => editor.destroy();
  }, [schema]);
  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value }, annotations: fromOutside.of(true) });
  }, [value]);
  return <div className="json-editor" ref={host} data-testid="json-editor" />;
}
