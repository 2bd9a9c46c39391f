// Shared shapes and formatting for the views. Values are turned into strings; the views put those
// strings in text nodes only.

/** A value from an agent or a command as a string: strings as they are, anything else as JSON. */
export function show(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** A timestamp as the person's local time, with the ISO form kept for the title attribute. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
