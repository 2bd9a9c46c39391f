// Maps a path inside the parsed document back to the line and column where it was written, using
// the `yaml` package's node ranges, so that a load error names file:line:column.
import {
  type Document,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  visit,
} from 'yaml';

/** A 1-based position in the source text. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Finds positions of document paths. `key: true` points at a map key rather than its value. */
export interface Locator {
  at(path: readonly PropertyKey[], options?: { key?: boolean }): Position;
  /** Position of a UTF-16 offset inside the string scalar at `path` (for a placeholder inside an argv element). */
  inside(path: readonly PropertyKey[], offset: number): Position;
}

function keyOf(node: unknown): unknown {
  return isScalar(node) ? node.value : node;
}

/**
 * A locator over a parsed YAML document: `at(path)` gives the 1-based line and column where the value
 * (or, with `key: true`, the key) at a document path was written. Used by every YAML config loader.
 */
export function locator(doc: Document.Parsed, lc: LineCounter, text: string): Locator {
  const pos = (offset: number): Position => {
    const { line, col } = lc.linePos(offset);
    return { line, column: col };
  };
  // The deepest node the path reaches: a missing key points at the map that lacks it.
  const find = (path: readonly PropertyKey[], wantKey: boolean): Node | null => {
    let node: unknown = doc.contents;
    let last: Node | null = (doc.contents as Node | null) ?? null;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && String(keyOf(p.key)) === String(seg));
        if (!pair) return last;
        const isLast = i === path.length - 1;
        if (isLast && wantKey) return (pair.key as Node) ?? last;
        node = pair.value ?? pair.key;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg];
        if (item === undefined) return last;
        node = item;
      } else {
        return last;
      }
      if (node && typeof node === 'object' && 'range' in node) last = node as Node;
    }
    return last;
  };
  return {
    at(path, options = {}) {
      const node = find(path, options.key === true);
      return pos(node?.range?.[0] ?? 0);
    },
    inside(path, offset) {
      const node = find(path, false);
      const start = node?.range?.[0] ?? 0;
      if (!isScalar(node) || typeof node.value !== 'string') return pos(start);
      const quote = node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? 1 : 0;
      const value = node.value;
      // Only trust the offset when the source spells the value verbatim up to it (no escapes, one line).
      const prefix = value.slice(0, offset + 2);
      if (text.slice(start + quote, start + quote + prefix.length) === prefix)
        return pos(start + quote + offset);
      return pos(start);
    },
  };
}

/** A YAML syntax error at a 1-based position; `message` reads "not valid YAML: …". */
export interface YamlSyntaxError extends Position {
  readonly message: string;
}

/**
 * Parses a YAML configuration file the one way every loader does (duplicate keys refused, at most
 * 100 aliases expanded): its data and a locator over it, or each syntax error with its position.
 */
export function parseYamlConfig(
  text: string,
): { ok: true; data: unknown; loc: Locator } | { ok: false; errors: YamlSyntaxError[] } {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const { line, col } = lc.linePos(e.pos[0]);
        return { line, column: col, message: `not valid YAML: ${e.message.split('\n')[0] ?? e.message}` };
      }),
    };
  }
  // A map key that is itself a map or list cannot become a JavaScript key: toJS would stringify it
  // and print a process warning. The usual cause is an unquoted template, so say that first.
  const keyed = collectionKeys(doc, lc, text);
  if (keyed.length > 0) return { ok: false, errors: keyed };
  try {
    return { ok: true, data: doc.toJS({ maxAliasCount: 100 }) ?? {}, loc: locator(doc, lc, text) };
  } catch {
    return { ok: false, errors: [{ line: 1, column: 1, message: 'not valid YAML: too many aliases' }] };
  }
}

/**
 * Every map whose key is a map or a list, as an error at the map. `[head, {{n}}]` and `- {{n}}` read
 * `{{n}}` as a map whose key is the map `{n}`: that error says to quote the template.
 */
function collectionKeys(doc: Document.Parsed, lc: LineCounter, text: string): YamlSyntaxError[] {
  const errors: YamlSyntaxError[] = [];
  visit(doc, {
    Pair(_, pair, path) {
      if (!isCollection(pair.key)) return;
      const parent = path.at(-1) as Node | undefined;
      const start = parent?.range?.[0] ?? pair.key.range?.[0] ?? 0;
      const { line, col } = lc.linePos(start);
      const source = text.slice(start, parent?.range?.[1] ?? start).trim();
      const message = /^\{\{[^{}\n]*\}\}$/.test(source)
        ? `the unquoted template ${source} reads as a YAML map; quote the template: "${source}"`
        : `a map key here is itself a map or a list, found ${JSON.stringify(source.slice(0, 40))}; expected a plain key, e.g. key: value (quote a value that starts with "{" or "[")`;
      errors.push({ line, column: col, message });
      return visit.SKIP;
    },
  });
  return errors;
}
