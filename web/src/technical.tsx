// The one "Technical details" disclosure of a screen: ids, JSON pointers, raw JSON, error codes and request
// ids are for support, so they live only inside it. Browser tests check that nothing technical shows outside
// `[data-technical]` (test/support/plainLanguage.ts).
import type { ReactNode } from 'react';

export function TechnicalDetails({ children, summary = 'Technical details' }: { children: ReactNode; summary?: string }) {
  return (
    <details data-technical="" className="technical">
      <summary>{summary}</summary>
      <div className="technical-body">{children}</div>
    </details>
  );
}
