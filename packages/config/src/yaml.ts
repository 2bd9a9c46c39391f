// @harness/config/yaml: YAML the way every config file of the repository is read: duplicate keys
// refused, aliases bounded, and every path of the parsed data mapped back to the line and column where
// it was written (the `yaml` package's node ranges), so that a load error names file:line:column.
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

/** A YAML syntax error at a 1-based position. */
export interface YamlSyntaxError extends Position {
  /** What is wrong, in the parser's words or ours, e.g. `Map keys must be unique`. */
  readonly reason: string;
  /** The reason as a loader shows it: `not valid YAML: …`, or how to quote a template read as a map. */
  readonly message: string;
}

/** What {@link parseYamlConfig} returns: the data and a locator over it, or every syntax error found. */
export type YamlConfigResult =
  | { readonly ok: true; readonly data: unknown; readonly loc: Locator }
  | { readonly ok: false; readonly errors: readonly YamlSyntaxError[] };

// At most this many aliases are expanded: a few anchors reused is configuration, more is an attack.
const MAX_ALIASES = 100;

function keyOf(node: unknown): unknown {
  return isScalar(node) ? node.value : node;
}

/**
 * Parses a YAML configuration file the one way every loader does (duplicate keys refused, at most
 * 100 aliases expanded): its data (`{}` for an empty file) and a locator over it, or each syntax
 * error with its position. JSON is YAML, so a JSON file reads the same way. Never throws.
 */
export function parseYamlConfig(text: string): YamlConfigResult {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const { line, col } = lc.linePos(e.pos[0]);
        return syntaxError(line, col, e.message.split('\n')[0] ?? e.message);
      }),
    };
  }
  const structural = structureErrors(doc, lc, text);
  if (structural.length > 0) return { ok: false, errors: structural };
  try {
    return { ok: true, data: doc.toJS({ maxAliasCount: MAX_ALIASES }) ?? {}, loc: locator(doc, lc, text) };
  } catch {
    // Every alias names an anchor set before it (checked above), so what toJS refuses is the count.
    return { ok: false, errors: [syntaxError(1, 1, 'too many aliases')] };
  }
}

function syntaxError(line: number, column: number, reason: string): YamlSyntaxError {
  return { line, column, reason, message: `not valid YAML: ${reason}` };
}

/**
 * What parses but cannot become data, each at its node:
 * - a map whose key is a map or a list: toJS would stringify the key and print a process warning.
 *   The usual cause is an unquoted template (`[head, {{n}}]` and `- {{n}}` read `{{n}}` as a map whose
 *   key is the map `{n}`), so that error says to quote the template;
 * - an alias whose anchor is not set before it: toJS would throw without a position.
 */
function structureErrors(doc: Document.Parsed, lc: LineCounter, text: string): YamlSyntaxError[] {
  const errors: YamlSyntaxError[] = [];
  const at = (offset: number) => lc.linePos(offset);
  // Anchors in document order, the order in which an alias looks for its anchor.
  const anchors = new Set<string>();
  visit(doc, {
    Node(_, node) {
      if ((isScalar(node) || isCollection(node)) && node.anchor) anchors.add(node.anchor);
    },
    Alias(_, alias) {
      if (anchors.has(alias.source)) return;
      const { line, col } = at(alias.range?.[0] ?? 0);
      errors.push(
        syntaxError(line, col, `Unresolved alias (the anchor must be set before the alias): ${alias.source}`),
      );
    },
    Pair(_, pair, path) {
      if (!isCollection(pair.key)) return;
      const parent = path.at(-1) as Node | undefined;
      const start = parent?.range?.[0] ?? pair.key.range?.[0] ?? 0;
      const { line, col } = at(start);
      const source = text.slice(start, parent?.range?.[1] ?? start).trim();
      const reason = /^\{\{[^{}\n]*\}\}$/.test(source)
        ? `the unquoted template ${source} reads as a YAML map; quote the template: "${source}"`
        : `a map key here is itself a map or a list, found ${JSON.stringify(source.slice(0, 40))}; expected a plain key, e.g. key: value (quote a value that starts with "{" or "[")`;
      errors.push({ line, column: col, reason, message: reason });
      return visit.SKIP;
    },
  });
  return errors;
}

/**
 * A locator over a parsed YAML document: `at(path)` gives the 1-based line and column where the value
 * (or, with `key: true`, the key) at a document path was written.
 */
function locator(doc: Document.Parsed, lc: LineCounter, text: string): Locator {
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
