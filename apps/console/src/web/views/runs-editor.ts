// The harness editor's model (TM-127): a kind and an argv edited over a harness entry as written.
// Every other key comes back unchanged, in its place; an entry nobody edited comes back as it was.

export type HarnessEntry = Record<string, unknown>;

/** What the editor changes: only the kind and the argv. */
export interface HarnessEdit {
  kind: string;
  argv: string[] | undefined;
}

/** The edit an entry starts from. */
export function editOf(entry: HarnessEntry): HarnessEdit {
  return {
    kind: typeof entry.kind === 'string' ? entry.kind : '',
    argv: Array.isArray(entry.argv) ? entry.argv.map(String) : undefined,
  };
}

const sameArgv = (a: unknown, b: string[] | undefined) =>
  b === undefined
    ? a === undefined
    : Array.isArray(a) && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The entry with the edit applied: keys keep their order, `kind` and `argv` are replaced in place
 * (an argv the entry did not have is added after `kind`; an emptied one is removed). Unedited, the
 * entry itself is returned.
 */
export function applyEdit(entry: HarnessEntry, edit: HarnessEdit): HarnessEntry {
  const argv = edit.argv?.length === 0 ? undefined : edit.argv;
  if (entry.kind === edit.kind && sameArgv(entry.argv, argv)) return entry;
  const out: HarnessEntry = {};
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'argv') {
      if (argv !== undefined) out.argv = [...argv];
      continue;
    }
    out[key] = key === 'kind' ? edit.kind : value;
    if (key === 'kind' && argv !== undefined && !('argv' in entry)) out.argv = [...argv];
  }
  return out;
}
