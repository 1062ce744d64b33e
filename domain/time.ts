// Timestamps are ISO 8601 UTC in every response (STYLE.md).
export function iso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  // PostgreSQL text form: "2026-11-21 13:40:40.877+00"
  const normalized = text.includes('T') ? text : text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  const date = new Date(normalized);
  if (Number.isNaN(date.getTime())) throw new Error(`not a timestamp: ${text}`);
  return date.toISOString();
}

export function isoRequired(value: unknown): string {
  const out = iso(value);
  if (out === null) throw new Error('timestamp required');
  return out;
}
