import { ACTOR_PATTERN, checkMetaKey, type DropRule } from './patterns';
import { type ExtractorTable, extractorTables, isScheme, readPath, type UntrustedField } from './tables';

/**
 * The validated values of one delivery: what templates may render outside the fence.
 *
 * Each field is present only when the payload held it and it passed its row of the seed's validation
 * table. `actor` is present only for a trusted actor. No value can begin with `-`.
 */
export interface Typed {
  name?: string;
  action?: string;
  repo?: string;
  number?: number;
  url?: string;
  sha?: string;
  actor?: string;
  /** `meta.<key>` values; absent when the table filled none. */
  meta?: Record<string, string>;
}

/** The free-text fields of one delivery, unvalidated: only the untrusted fence may render them. */
export type Untrusted = Partial<Record<UntrustedField, string>>;

/**
 * A field that was present but not extracted: which field, which rule it failed, and the payload path
 * it came from. Never the value, so a dropped secret cannot leak through a log of drops.
 */
export interface Dropped {
  field: string;
  rule: DropRule;
  path?: string;
}

/** The result of {@link extract}. */
export interface Extraction {
  typed: Typed;
  untrusted: Untrusted;
  dropped: Dropped[];
}

/** What {@link extract} reads. */
export interface ExtractInput {
  /** `github`, `gitea` or `forgejo`; any other scheme yields an empty extraction. */
  scheme: string;
  /** The event name from the delivery's header (`X-GitHub-Event` and the like). */
  event: unknown;
  /** The parsed JSON body. */
  body: unknown;
  /** The source's `trusted_actors`: user names, matched case-insensitively. */
  trustedActors?: readonly unknown[] | undefined;
}

type Found = { present: false } | { present: true; value: unknown; path: string } | { unreadable: true };

function firstPresent(body: unknown, paths: readonly string[]): Found {
  for (const path of paths) {
    let value: unknown;
    try {
      value = readPath(body, path);
    } catch {
      return { unreadable: true };
    }
    if (value !== undefined && value !== null) return { present: true, value, path };
  }
  return { present: false };
}

function trustedSet(list: readonly unknown[] | undefined): Set<string> {
  const out = new Set<string>();
  if (!Array.isArray(list)) return out;
  for (const entry of list) {
    // An org or team (`org/team`, `@org`) fails the user-name pattern and so never matches (TM-69).
    if (typeof entry === 'string' && ACTOR_PATTERN.test(entry)) out.add(entry.toLowerCase());
  }
  return out;
}

/**
 * Runs one extractor table over a delivery. {@link extract} picks the table by scheme; this entry
 * exists so a table under development can be tested before it is registered.
 *
 * Never throws, whatever `body` is.
 */
export function extractWith(table: ExtractorTable, input: Omit<ExtractInput, 'scheme'>): Extraction {
  const typed: Typed = {};
  const untrusted: Untrusted = {};
  const dropped: Dropped[] = [];
  const meta: Record<string, string> = {};
  const trusted = trustedSet(input.trustedActors);

  for (const row of table.typed) {
    let metaKey: string | undefined;
    if (row.field.startsWith('meta.')) {
      const key = checkMetaKey(row.field.slice('meta.'.length));
      if (!key.ok) {
        dropped.push({ field: row.field, rule: key.rule });
        continue;
      }
      metaKey = key.value;
    }
    const found: Found =
      row.source === 'event'
        ? input.event === undefined || input.event === null
          ? { present: false }
          : { present: true, value: input.event, path: '(event)' }
        : firstPresent(input.body, row.jsonPaths);
    if ('unreadable' in found) {
      dropped.push({ field: row.field, rule: 'unreadable' });
      continue;
    }
    if (!found.present) continue;
    let checked: ReturnType<typeof row.validate>;
    try {
      checked = row.validate(found.value, input.body);
    } catch {
      checked = { ok: false, rule: 'unreadable' };
    }
    if (!checked.ok) {
      dropped.push({ field: row.field, rule: checked.rule, path: found.path });
      continue;
    }
    const value = checked.value;
    if (metaKey !== undefined) {
      if (typeof value === 'string') meta[metaKey] = value;
      continue;
    }
    switch (row.field) {
      case 'number':
        if (typeof value === 'number') typed.number = value;
        break;
      case 'actor':
        if (typeof value !== 'string') break;
        if (trusted.has(value.toLowerCase())) typed.actor = value;
        else dropped.push({ field: 'actor', rule: 'actor_not_trusted', path: found.path });
        break;
      case 'name':
      case 'action':
      case 'repo':
      case 'url':
      case 'sha':
        if (typeof value === 'string') typed[row.field] = value;
        break;
    }
  }
  if (Object.keys(meta).length > 0) typed.meta = meta;

  for (const row of table.untrusted) {
    const found = firstPresent(input.body, row.jsonPaths);
    if ('unreadable' in found) {
      dropped.push({ field: row.field, rule: 'unreadable' });
      continue;
    }
    if (!found.present) continue;
    if (typeof found.value === 'string') untrusted[row.field] = found.value;
    else dropped.push({ field: row.field, rule: 'untrusted_type', path: found.path });
  }

  return { typed: ordered(typed), untrusted, dropped };
}

// A fixed key order keeps the envelope's `typed` byte-stable between the original run and a replay.
function ordered(typed: Typed): Typed {
  const out: Typed = {};
  if (typed.name !== undefined) out.name = typed.name;
  if (typed.action !== undefined) out.action = typed.action;
  if (typed.repo !== undefined) out.repo = typed.repo;
  if (typed.number !== undefined) out.number = typed.number;
  if (typed.url !== undefined) out.url = typed.url;
  if (typed.sha !== undefined) out.sha = typed.sha;
  if (typed.actor !== undefined) out.actor = typed.actor;
  if (typed.meta !== undefined) out.meta = typed.meta;
  return out;
}

/**
 * Extracts the typed and free-text fields of one webhook delivery with the scheme's table.
 *
 * A field the payload lacks is absent; a field that fails its rule is absent and listed in `dropped`
 * (never guessed from elsewhere). A scheme without a table (`switchboard`, `cairn`, anything else)
 * yields empty `typed` and `untrusted` and one `scheme_unsupported` drop. Never throws.
 *
 * @example
 * const { typed } = extract({ scheme: 'github', event: 'pull_request', body, trustedActors: ['octocat'] });
 */
export function extract(input: ExtractInput): Extraction {
  if (!isScheme(input.scheme)) {
    return { typed: {}, untrusted: {}, dropped: [{ field: '*', rule: 'scheme_unsupported' }] };
  }
  return extractWith(extractorTables[input.scheme], input);
}
