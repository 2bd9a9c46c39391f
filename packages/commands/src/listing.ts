// Rendering a catalog as the list_commands result, compacted to fit the model's listing bound.
import { sanitizeSchema } from '@harness/signature';
import type { Catalog, CatalogRow } from './catalog';
import { LIMITS } from './limits';
import type { ListEntry, ListingOutcome } from './outcome';
import { OutcomeStatus } from './outcome-codes';
import type { RunState } from './run';
import { jsonBytes } from './shape';

/** The notice every listing carries (seed 000 "list_commands"). */
export const LIST_NOTICE =
  "A command's effect is shown only where the host declares it, in the bracket that ends its signature; assume a command whose effect is not shown may change the person's data. The bracket reads [effect, target]: [read, global] is a read (it changes nothing) that acts on no particular loom; a write changes data; a loom target acts on one loom, named by the call's loomId. readOnlyGranted: true marks the commands run_read_command may run; every other command needs run_command. A description ending in \" …\" continues in list_commands({ detail: [name] }).";

/**
 * The sentence a listing's notice gains when the host holds tools back for review: counts only,
 * never a server's words.
 */
export function quarantineNotice(n: number): string {
  return `${n} more tool${n === 1 ? ' is' : 's are'} quarantined: an MCP server lists ${n === 1 ? 'it' : 'them'}, but no person has accepted ${n === 1 ? 'its definition' : 'their definitions'} (new, or changed since accepted), so ${n === 1 ? 'it is' : 'they are'} neither listed nor callable until a person reviews ${n === 1 ? 'it' : 'them'}; tell the person if you need one.`;
}

/** The notice of a listing: {@link LIST_NOTICE}, then each of `extra` (what this host adds). */
export function listNotice(extra: readonly string[] = []): string {
  return extra.length === 0 ? LIST_NOTICE : [LIST_NOTICE, ...extra].join(' ');
}

/** What ends a description cut to its first paragraph. */
const CONTINUED = ' …';

/**
 * A description as the plain listing shows it: its first paragraph (the text before the first line
 * break), marked as continued when more follows. `detail` shows it whole.
 */
export function leadParagraph(description: string): string {
  const end = description.indexOf('\n');
  if (end === -1) return description;
  const lead = description.slice(0, end).trimEnd();
  return lead === '' ? description : `${lead}${CONTINUED}`;
}

/** `whole` adds the description (its lead paragraph); `detail` adds all of it and the sanitised argument schema. */
function listEntry(row: CatalogRow, whole: boolean, detail: boolean): ListEntry {
  const e: ListEntry = { name: row.name, signature: row.signature };
  if (row.title !== undefined) e.title = row.title;
  if (whole && row.description !== undefined)
    e.description = detail ? row.description : leadParagraph(row.description);
  if (row.readOnlyGranted) e.readOnlyGranted = true;
  if (detail) e.inputSchema = sanitizeSchema(row.inputs);
  return e;
}

/**
 * Builds the `list_commands` result from a catalog: entries whole while the listing fits the model
 * bound (counting every later entry in its compact form, and the notice), the rest without
 * description; entries named in `detail` always whole, with their sanitised `inputSchema`.
 */
export function renderListing(
  run: RunState,
  catalog: Catalog,
  detail: readonly string[] = [],
  bound: number = LIMITS.listBound,
  notice: string = LIST_NOTICE,
): ListingOutcome {
  const wanted = new Set(detail);
  const rows = catalog.rows;
  const held = catalog.quarantined > 0 ? { quarantined: catalog.quarantined } : {};
  if (catalog.quarantined > 0) notice = `${notice} ${quarantineNotice(catalog.quarantined)}`;
  const n = rows.length;
  const entries = new Array<ListEntry>(n);
  const compactSize = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const row = rows[i] as CatalogRow;
    const isDetail = wanted.has(row.name);
    // A detail entry is always whole; the others start compact and gain their description below.
    const e = listEntry(row, isDetail, isDetail);
    entries[i] = e;
    compactSize[i] = Buffer.byteLength(JSON.stringify(e)) + 1;
  }
  // What every entry from i on costs in its compact form: the room an earlier entry must leave.
  const compactFrom = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) compactFrom[i] = (compactFrom[i + 1] ?? 0) + (compactSize[i] ?? 0);
  const head: ListingOutcome = {
    outputId: 'out-',
    status: OutcomeStatus.ok,
    notice,
    entries: [],
    hidden: catalog.hidden,
    omitted: catalog.omitted,
    compacted: n,
    ...held,
  };
  // Room for the real output id, longer than the placeholder above.
  let used = jsonBytes(head) + 32;
  let whole = true;
  let compacted = 0;
  for (let i = 0; i < n; i++) {
    const row = rows[i] as CatalogRow;
    const size = compactSize[i] ?? 0;
    if (row.description === undefined || wanted.has(row.name)) {
      used += size;
      continue;
    }
    if (whole) {
      // The description's cost: `,"description":` plus its JSON text.
      const description = leadParagraph(row.description);
      const extra = 15 + Buffer.byteLength(JSON.stringify(description));
      if (used + size + extra + (compactFrom[i + 1] ?? 0) <= bound) {
        (entries[i] as ListEntry).description = description;
        used += size + extra;
        continue;
      }
      // The first entry that does not fit ends the whole prefix: the rest lose their description.
      whole = false;
    }
    used += size;
    compacted++;
  }
  return {
    outputId: run.mintOutputId(),
    status: OutcomeStatus.ok,
    notice,
    entries,
    hidden: catalog.hidden,
    omitted: catalog.omitted,
    compacted,
    ...held,
  };
}
