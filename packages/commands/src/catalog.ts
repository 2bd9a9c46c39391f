// Reading a host listing into a run's catalog: the rows an agent is shown, and names to suggest.
import { editDistance } from '@harness/errors';
import { renderSignature } from '@harness/signature';
import { isRecord, isStringArray } from './json';
import { LIMITS } from './limits';
import { DeliveryCode } from './outcome-codes';

/** One command the catalog shows: a manifest row an agent may call. */
export interface CatalogRow {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string | undefined;
  /** The host's argument schema, as the host wrote it (x-* keywords included). */
  readonly inputs: unknown;
  readonly outputs: readonly string[] | undefined;
  readonly effect: string | undefined;
  readonly scope: string | undefined;
  /** True only where the broker's stamp is the literal `true`. */
  readonly readOnlyGranted: boolean;
  /** The label the host declares for this command's answers, when it declares one. */
  readonly ifc: unknown;
  readonly hasLabel: boolean;
  /**
   * The timeout the host enforces on this command, in ms, where its row names one (a positive
   * whole number); a call waits that long plus a margin for its answer.
   */
  readonly timeoutMs: number | undefined;
  /** The host says the pack lets telemetry export this command's argument values (the literal `true`). */
  readonly telemetryArgs: boolean;
  /** The one-line signature (rendered on first use, then held). */
  readonly signature: string;
}

/** A run's view of the host listing: the rows shown, and counts of the rest. */
export interface Catalog {
  /** Shown rows, in the host's order. */
  readonly rows: readonly CatalogRow[];
  /** Shown rows by name. */
  readonly byName: ReadonlyMap<string, CatalogRow>;
  /** Rows left out because their own declarations say an agent may not run them. */
  readonly hidden: number;
  /** Rows that could not be read, repeated a name, or fell past the catalog limit. */
  readonly omitted: number;
  /** Tools the host holds back until a person accepts their definitions (the listing's `quarantined`). */
  readonly quarantined: number;
}

function strings(v: unknown): string[] | undefined {
  return isStringArray(v) ? v : undefined;
}

/**
 * Why a row is hidden from agents, or `undefined` when it is shown. Presentation only: the broker's
 * scope decides what runs. An actor is an agent when it starts with `agent:`; any other is a person.
 */
export function hiddenReason(row: Record<string, unknown>): string | undefined {
  if (row.origin === 'pattern') return 'origin_pattern';
  if (row.developer === true) return 'developer';
  const actors = strings(row.actors);
  if (actors && actors.length > 0 && !actors.some((a) => a.startsWith('agent:'))) return 'people_only';
  const refused = strings(row.origins_refused);
  if (refused?.includes('session')) return 'origin_refused';
  const required = strings(row.origins_required);
  if (required && required.length > 0 && !required.includes('session')) return 'origin_required';
  if (row.grant !== undefined && row.grant !== null && row.grant !== false && row.grant !== '')
    return 'consent_grant';
  return undefined;
}

const NAME = /^[^\s\p{Cc}]{1,256}$/u;

/** A shown row; the signature is rendered on first use and held (prototype getter, no per-row closure). */
class Row implements CatalogRow {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string | undefined;
  readonly inputs: unknown;
  readonly outputs: readonly string[] | undefined;
  readonly effect: string | undefined;
  readonly scope: string | undefined;
  readonly readOnlyGranted: boolean;
  readonly ifc: unknown;
  readonly hasLabel: boolean;
  readonly timeoutMs: number | undefined;
  readonly telemetryArgs: boolean;
  #signature: string | undefined;

  constructor(raw: Record<string, unknown>, name: string) {
    this.name = name;
    this.title = typeof raw.title === 'string' && raw.title !== '' ? raw.title : undefined;
    this.description = typeof raw.help === 'string' && raw.help !== '' ? raw.help : undefined;
    this.inputs = raw.inputs;
    this.outputs = strings(raw.outputs);
    this.effect = typeof raw.effect === 'string' ? raw.effect : undefined;
    this.scope = typeof raw.scope === 'string' ? raw.scope : undefined;
    this.readOnlyGranted = raw.readOnlyGranted === true;
    this.ifc = raw.ifc;
    this.hasLabel = raw.ifc !== undefined;
    const timeout = raw.timeoutMs;
    this.timeoutMs =
      typeof timeout === 'number' && Number.isSafeInteger(timeout) && timeout > 0 ? timeout : undefined;
    this.telemetryArgs = raw.telemetryArgs === true;
  }

  get signature(): string {
    this.#signature ??= renderSignature({
      name: this.name,
      inputSchema: this.inputs,
      ...(this.outputs !== undefined ? { outputs: this.outputs } : {}),
      ...(this.effect !== undefined ? { effect: this.effect } : {}),
      ...(this.scope !== undefined ? { scope: this.scope } : {}),
    });
    return this.#signature;
  }
}

function readRow(raw: unknown): CatalogRow | 'omit' | 'hide' {
  if (!isRecord(raw) || typeof raw.id !== 'string' || !NAME.test(raw.id)) return 'omit';
  if (hiddenReason(raw) !== undefined) return 'hide';
  return new Row(raw, raw.id);
}

/**
 * Reads a host listing (`{ commands: [...] }`) into a catalog. A listing of any other shape is
 * `malformed_payload`; a single unreadable row only counts as `omitted`.
 */
export function readCatalog(
  listing: unknown,
  limit: number = LIMITS.catalogRows,
): { ok: true; catalog: Catalog } | { ok: false; code: typeof DeliveryCode.malformed_payload } {
  if (!isRecord(listing) || !Array.isArray(listing.commands))
    return { ok: false, code: DeliveryCode.malformed_payload };
  const rows: CatalogRow[] = [];
  const byName = new Map<string, CatalogRow>();
  let hidden = 0;
  let omitted = 0;
  let read = 0;
  const seen = new Set<string>();
  for (const raw of listing.commands) {
    if (read >= limit) {
      omitted++;
      continue;
    }
    read++;
    const row = readRow(raw);
    if (row === 'omit') {
      omitted++;
      continue;
    }
    // A repeated name is ambiguous: neither copy is trusted over the other, the first is kept.
    const id = (raw as { id: string }).id;
    if (seen.has(id)) {
      omitted++;
      continue;
    }
    seen.add(id);
    if (row === 'hide') {
      hidden++;
      continue;
    }
    rows.push(row);
    byName.set(row.name, row);
  }
  const held = listing.quarantined;
  const quarantined = typeof held === 'number' && Number.isSafeInteger(held) && held > 0 ? held : 0;
  return { ok: true, catalog: { rows, byName, hidden, omitted, quarantined } };
}

/**
 * Up to three shown names nearest `called`: names containing it first (shortest first), then the
 * rest by edit distance; ties keep the catalog's order.
 */
export function suggest(catalog: Catalog, called: string, max: number = LIMITS.maxSuggestions): string[] {
  const needle = called.toLowerCase();
  const containing: CatalogRow[] = [];
  const rest: { name: string; d: number; i: number }[] = [];
  catalog.rows.forEach((row, i) => {
    const n = row.name.toLowerCase();
    if (needle !== '' && n.includes(needle)) containing.push(row);
    else rest.push({ name: row.name, d: editDistance(needle, n), i });
  });
  containing.sort((a, b) => a.name.length - b.name.length);
  rest.sort((a, b) => a.d - b.d || a.i - b.i);
  return [...containing.map((r) => r.name), ...rest.map((r) => r.name)].slice(0, max);
}
