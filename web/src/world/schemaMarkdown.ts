// Stands in for codemirror-json-schema's markdown renderer (web/vite.config.ts swaps it in): the original loads
// markdown-it and the Shiki highlighter (a WebAssembly regex engine the page's Content-Security-Policy refuses, and
// hundreds of kilobytes) to format the schema's one-line descriptions. Here they are shown as escaped plain text.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function renderMarkdown(markdown: string, inline = true): string {
  const escaped = String(markdown).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
  return inline ? escaped : `<p>${escaped}</p>`;
}
