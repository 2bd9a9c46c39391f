// Puts one server entry into a JSON (or JSONC) client config and changes nothing else: other servers,
// comments, key order and formatting stay byte for byte. jsonc-parser computes the edit; only the
// inserted text is formatted, in the file's own indentation.
import { isDeepStrictEqual } from 'node:util';
import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  format,
  type JSONPath,
  modify,
  type Node,
  type ParseError,
  parse,
  parseTree,
  printParseErrorCode,
} from 'jsonc-parser';
import { findDuplicateKey } from './json-duplicates';
import { insertAfterLast } from './json-insert';

/**
 * A merge: the new text, the entry that was there before and the keys of it init removed (keys it
 * does not write, such as an `env` or a `cwd`), or why the file cannot take it.
 */
export type MergeResult =
  | {
      readonly ok: true;
      readonly text: string;
      readonly previous: unknown;
      readonly replaced: readonly string[];
    }
  | Unfit;

/** Why a file cannot take the entry; `where` is `line:column` when the problem has a place. */
export interface Unfit {
  readonly ok: false;
  readonly problem: string;
  readonly where?: string;
}

/** A read of one entry: its value (`undefined` when absent), or why the file cannot be read. */
export type ReadResult = { readonly ok: true; readonly entry: unknown } | Unfit;

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The entry `name` under `key` in JSON `text`, checking the shape on the way. */
export function readJsonEntry(text: string, key: string, name: string): ReadResult {
  const errors: ParseError[] = [];
  const root: unknown = parse(text, errors, PARSE_OPTIONS);
  const first = errors[0];
  if (first !== undefined) {
    const { line, column } = position(text, first.offset);
    return {
      ok: false,
      problem: `not valid JSON (${printParseErrorCode(first.error)})`,
      where: `${line}:${column}`,
    };
  }
  if (text.trim() === '') return { ok: true, entry: undefined };
  if (!isObject(root)) return { ok: false, problem: 'holds no JSON object at the top' };
  const tree = parseTree(text, [], PARSE_OPTIONS);
  const twice = tree === undefined ? undefined : findDuplicateKey(tree, key, name);
  if (twice !== undefined) {
    const first = position(text, twice.first);
    const second = position(text, twice.second);
    return {
      ok: false,
      problem: `${twice.path.map((k) => JSON.stringify(k)).join('.')} is written twice (lines ${first.line} and ${second.line}): clients differ on which one they run, so harness init will not pick one (keep one of them)`,
      where: `${second.line}:${second.column}`,
    };
  }
  const servers = root[key];
  if (servers === undefined) return { ok: true, entry: undefined };
  if (!isObject(servers)) return { ok: false, problem: `"${key}" is not an object` };
  const entry = servers[name];
  if (entry !== undefined && !isObject(entry))
    return { ok: false, problem: `"${key}"."${name}" is not an object` };
  return { ok: true, entry };
}

/**
 * `text` (`undefined`: no file yet) with `entry` as `key.name`. init owns that entry whole: a new
 * one is inserted; in an existing one each of our keys whose value differs is set, and every other
 * key (an `env`, a `cwd` a repository put there) is removed, since a client would run with it.
 */
export function mergeJsonEntry(
  text: string | undefined,
  key: string,
  name: string,
  entry: Record<string, unknown>,
): MergeResult {
  if (text === undefined || text.trim() === '')
    return {
      ok: true,
      text: `${JSON.stringify({ [key]: { [name]: entry } }, null, 2)}\n`,
      previous: undefined,
      replaced: [],
    };
  const read = readJsonEntry(text, key, name);
  if (!read.ok) return read;
  const options = formattingOf(text);
  const previous = read.entry as Record<string, unknown> | undefined;
  if (previous === undefined)
    return { ok: true, text: setValue(text, [key, name], entry, options), previous, replaced: [] };
  const replaced = Object.keys(previous).filter((field) => !Object.hasOwn(entry, field));
  let out = text;
  // Removing a property takes its comma with it and formats nothing: the rest keeps its layout.
  for (const field of replaced) out = applyEdits(out, modify(out, [key, name, field], undefined, {}));
  for (const [field, value] of Object.entries(entry)) {
    if (!isDeepStrictEqual(previous[field], value)) out = setValue(out, [key, name, field], value, options);
  }
  return { ok: true, text: out, previous, replaced };
}

/**
 * Sets `path` to `value`: a new property after the last one of its object, or else through
 * jsonc-parser's edit, formatting only the inserted text (or an empty object it fills).
 */
function setValue(text: string, path: JSONPath, value: unknown, options: FormattingOptions): string {
  const tree = parseTree(text, [], PARSE_OPTIONS);
  if (tree !== undefined && findNodeAtLocation(tree, path) === undefined) {
    const inserted = insertAfterLast(text, tree, path, value, options);
    if (inserted !== undefined) return inserted;
  }
  const empty = tree === undefined ? undefined : emptyAncestor(tree, path);
  const entryNode = tree === undefined ? undefined : findNodeAtLocation(tree, path.slice(0, 2));
  // An entry written on one line stays on one line: its new value goes in compact.
  const oneLine =
    path.length > 2 &&
    entryNode !== undefined &&
    !text.slice(entryNode.offset, entryNode.offset + entryNode.length).includes('\n');
  let out = text;
  for (const edit of modify(text, path, value, {})) {
    out = applyEdits(out, [edit]);
    if (oneLine) continue;
    const grown = edit.content.length - edit.length;
    const range =
      empty !== undefined
        ? { offset: empty.offset, length: empty.length + grown }
        : { offset: edit.offset, length: edit.content.length };
    out = applyEdits(out, format(out, range, options));
  }
  return out;
}

/** The deepest object on `path` that exists, when it is empty (`{}`): it is formatted whole. */
function emptyAncestor(tree: Node, path: JSONPath): Node | undefined {
  for (let n = path.length - 1; n >= 0; n--) {
    const node = n === 0 ? tree : findNodeAtLocation(tree, path.slice(0, n));
    if (node !== undefined)
      return node.type === 'object' && (node.children?.length ?? 0) === 0 ? node : undefined;
  }
  return undefined;
}

/** The file's indentation (the first indented line's) and line ending; two spaces by default. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

/** 1-based line and column of `offset`. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** `text` of a JSON source without the entries `names` under `key`; nothing else changes. */
export function removeJsonEntries(text: string, key: string, names: readonly string[]): string {
  let out = text;
  for (const name of names)
    out = removeLines(out, key, name) ?? applyEdits(out, modify(out, [key, name], undefined, {}));
  return out;
}

/**
 * `text` without the property `key.name` when it sits on lines of its own: those lines go whole
 * (with a comment at the end of its last line), and when it was the last property, the comma of
 * the one before it. `undefined` for any other layout (jsonc-parser's edit then removes it).
 */
function removeLines(text: string, key: string, name: string): string | undefined {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const value = tree === undefined ? undefined : findNodeAtLocation(tree, [key, name]);
  const property = value?.parent;
  const object = property?.parent;
  if (property === undefined || object === undefined) return undefined;
  const lineStart = text.lastIndexOf('\n', property.offset - 1) + 1;
  if (text.slice(lineStart, property.offset).trim() !== '') return undefined;
  let end = property.offset + property.length;
  const rest = /^[ \t]*(,)?[ \t]*(\/\/[^\n]*)?(\r?\n)/.exec(text.slice(end));
  if (rest === null) return undefined;
  const hadComma = rest[1] !== undefined;
  end += rest[0].length;
  const siblings = object.children ?? [];
  const at = siblings.indexOf(property);
  let out = text.slice(0, lineStart) + text.slice(end);
  // The last property leaves: the one before it loses the comma that separated them.
  const previous = at > 0 ? siblings[at - 1] : undefined;
  if (!hadComma && previous !== undefined) {
    const after = previous.offset + previous.length;
    const comma = /^[ \t]*,/.exec(out.slice(after));
    if (comma !== null) out = out.slice(0, after) + out.slice(after + comma[0].length - 1).replace(/^,/, '');
  }
  return out;
}
