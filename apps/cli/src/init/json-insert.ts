// A new property in a JSON (JSONC) object laid out one property per line: it goes after the object's
// last property, past that property's comma and the comment on its line, indented like it. So a
// comment that follows the last server stays beside that server, and every byte around is kept.
import { type FormattingOptions, findNodeAtLocation, type JSONPath, type Node } from 'jsonc-parser';

/**
 * `text` with `path` set to `value`, where `path` does not exist yet and its deepest existing object
 * holds properties on lines of their own; `undefined` when the object is laid out otherwise (empty,
 * or on one line), which the caller formats another way.
 */
export function insertAfterLast(
  text: string,
  tree: Node,
  path: JSONPath,
  value: unknown,
  options: FormattingOptions,
): string | undefined {
  const found = deepestObject(tree, path);
  const last = found?.node.children?.at(-1);
  if (found === undefined || last === undefined) return undefined;
  const lineStart = text.lastIndexOf('\n', last.offset) + 1;
  const indent = text.slice(lineStart, last.offset);
  if (!/^[ \t]*$/.test(indent)) return undefined;
  const lastEnd = last.offset + last.length;
  // After the last property on its line: a comma perhaps, a comment perhaps, then the line's end.
  const tail = /^[ \t]*(,?)[ \t]*(?:\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/)?[ \t]*(?=\r?\n)/.exec(
    text.slice(lastEnd),
  );
  if (tail === null) return undefined;
  const comma = tail[1] ?? '';
  const rest = path.slice(found.depth);
  const nested = rest.slice(1).reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
  const unit = options.insertSpaces ? ' '.repeat(options.tabSize ?? 2) : '\t';
  const body = JSON.stringify(nested, null, unit).split('\n').join(`${options.eol}${indent}`);
  const property = `${options.eol}${indent}${JSON.stringify(rest[0])}: ${body}${comma}`;
  const at = lastEnd + tail[0].length;
  const head = comma ? text.slice(0, at) : `${text.slice(0, lastEnd)},${text.slice(lastEnd, at)}`;
  return head + property + text.slice(at);
}

/** The deepest object on `path` that exists, and how many keys of `path` lead to it. */
function deepestObject(tree: Node, path: JSONPath): { node: Node; depth: number } | undefined {
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const node = depth === 0 ? tree : findNodeAtLocation(tree, path.slice(0, depth));
    if (node !== undefined) return node.type === 'object' ? { node, depth } : undefined;
  }
  return undefined;
}
