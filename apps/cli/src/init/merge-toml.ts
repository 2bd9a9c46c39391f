// Puts one server entry into a TOML client config (Codex's config.toml) and changes nothing else:
// comments, other tables and formatting stay byte for byte. A new entry is appended as its own
// `[mcp_servers.<name>]` table; an existing one is updated in place by toml-patch. Either way the
// result is parsed back and must hold exactly the old document plus the entry.
import { isDeepStrictEqual } from 'node:util';
import { parse, patch } from '@decimalturn/toml-patch';
import type { MergeResult, ReadResult } from './merge-json';

type Table = Record<string, unknown>;

const isTable = (v: unknown): v is Table =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

/** The document of `text`, or why it does not parse. */
function parseToml(text: string): { ok: true; doc: Table } | { ok: false; problem: string; where?: string } {
  try {
    return { ok: true, doc: parse(text) as Table };
  } catch (error) {
    // toml-patch says `Error parsing TOML (line, column):`, the line, a caret, then the reason.
    const lines = ((error as Error).message ?? String(error)).split('\n');
    const at = /\((\d+), (\d+)\)/.exec(lines[0] ?? '');
    return {
      ok: false,
      problem: `not valid TOML (${lines.at(-1)})`,
      ...(at ? { where: `${at[1]}:${at[2]}` } : {}),
    };
  }
}

/** The entry `name` under `key` in TOML `text`, checking the shape on the way. */
export function readTomlEntry(text: string, key: string, name: string): ReadResult {
  const parsed = parseToml(text);
  if (!parsed.ok) return parsed;
  const servers = parsed.doc[key];
  if (servers === undefined) return { ok: true, entry: undefined };
  if (!isTable(servers)) return { ok: false, problem: `${key} is not a table` };
  const entry = servers[name];
  if (entry !== undefined && !isTable(entry)) return { ok: false, problem: `${key}.${name} is not a table` };
  return { ok: true, entry };
}

/**
 * `text` (`undefined`: no file yet) with `entry` as `[key.name]`. init owns that entry whole: in an
 * existing one each of our keys is set and every other key (`env`, `cwd`) is removed.
 */
export function mergeTomlEntry(
  text: string | undefined,
  key: string,
  name: string,
  entry: Record<string, unknown>,
): MergeResult {
  const source = text ?? '';
  const read = readTomlEntry(source, key, name);
  if (!read.ok) return read;
  const doc = (parse(source) as Table) ?? {};
  const previous = read.entry as Table | undefined;
  const wanted: Table = {
    ...doc,
    [key]: { ...((doc[key] as Table) ?? {}), [name]: entry },
  };
  const replaced = Object.keys(previous ?? {}).filter((field) => !Object.hasOwn(entry, field));
  if (previous !== undefined && same(previous, entry)) return { ok: true, text: source, previous, replaced };
  const ways = [() => patch(source, wanted)];
  if (previous === undefined) ways.unshift(() => appendTable(source, key, name, entry));
  const merged = ways.map(attempt).find((c) => c !== undefined && holds(c, wanted));
  if (merged === undefined)
    return { ok: false, problem: `cannot add [${key}.${name}] without changing the rest of the file` };
  return { ok: true, text: merged, previous, replaced };
}

function attempt(way: () => string): string | undefined {
  try {
    return way();
  } catch {
    return undefined;
  }
}

/** Whether `text` parses to exactly `wanted`. */
function holds(text: string, wanted: Table): boolean {
  const back = parseToml(text);
  return back.ok && same(back.doc, wanted);
}

/** Deep equality of TOML values; the parser's tables have no prototype, ours do, which is no difference. */
function same(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(structuredClone(a), structuredClone(b));
}

/** `source` with a `[key.name]` table at its end, in the file's line ending. */
function appendTable(source: string, key: string, name: string, entry: Record<string, unknown>): string {
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const body = Object.entries(entry).map(([k, v]) => `${k} = ${tomlValue(v)}`);
  const table = [`[${key}.${name}]`, ...body].join(eol) + eol;
  if (source === '') return table;
  const gap = source.endsWith(eol + eol) ? '' : source.endsWith(eol) ? eol : eol + eol;
  return source + gap + table;
}

/** A string or an array of strings as TOML: JSON's escapes are TOML's, but for DEL. */
function tomlValue(value: unknown): string {
  const str = (s: string) => JSON.stringify(s).replace(/\u007f/g, '\\u007F');
  if (typeof value === 'string') return str(value);
  if (Array.isArray(value)) return `[${value.map((v) => str(String(v))).join(', ')}]`;
  throw new Error(`a TOML entry value must be a string or a list of strings, found ${typeof value}`);
}

/**
 * `text` without the tables `[key.<name>]` of `names` (and their sub-tables); the rest of the
 * document stays, checked by parsing the result back.
 */
export function removeTomlEntries(
  text: string,
  key: string,
  names: readonly string[],
): { ok: true; text: string } | { ok: false; problem: string } {
  const parsed = parseToml(text);
  if (!parsed.ok) return parsed;
  const servers = parsed.doc[key];
  if (!isTable(servers)) return { ok: true, text };
  const wanted: Table = { ...parsed.doc, [key]: { ...servers } };
  for (const name of names) delete (wanted[key] as Table)[name];
  const merged = attempt(() => patch(text, wanted));
  if (merged === undefined || !holds(merged, wanted))
    return {
      ok: false,
      problem: `cannot remove ${names.join(', ')} from ${key} without changing the rest of the file`,
    };
  return { ok: true, text: merged };
}
