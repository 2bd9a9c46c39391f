// Duplicate keys in the objects init edits. JSON leaves them undefined: `JSON.parse` (and so most
// clients) keeps the last, while an edit located by jsonc-parser changes the first. A repository
// shipping two `mcpServers` (or two `harness`) would then have init write an entry no client runs,
// beside the repository's own that one does. So a duplicate there stops init.
import type { Node } from 'jsonc-parser';

/** A key written twice in one object: its path, and the 0-based offsets of both occurrences. */
export interface DuplicateKey {
  readonly path: readonly string[];
  readonly first: number;
  readonly second: number;
}

/**
 * The first duplicate key of the objects init edits in `root`: the top object, every object under
 * `key`, and every `name` entry there with everything inside it (init replaces that entry whole).
 * Keys compare as parsed, so `"harn\u0065ss"` and `"harness"` are the same key.
 */
export function findDuplicateKey(root: Node, key: string, name: string): DuplicateKey | undefined {
  const top = duplicateIn(root, []);
  if (top !== undefined) return top;
  for (const servers of valuesOf(root, key)) {
    const found = duplicateIn(servers, [key]);
    if (found !== undefined) return found;
    for (const entry of valuesOf(servers, name)) {
      const inside = deepDuplicate(entry, [key, name]);
      if (inside !== undefined) return inside;
    }
  }
  return undefined;
}

/** The values of every property named `key` of object `node`. */
function valuesOf(node: Node, key: string): Node[] {
  if (node.type !== 'object') return [];
  return (node.children ?? []).flatMap((p) =>
    p.children?.[0]?.value === key && p.children[1] !== undefined ? [p.children[1]] : [],
  );
}

/** A key written twice among the properties of object `node` (not below them). */
function duplicateIn(node: Node, path: readonly string[]): DuplicateKey | undefined {
  if (node.type !== 'object') return undefined;
  const seen = new Map<string, number>();
  for (const property of node.children ?? []) {
    const keyNode = property.children?.[0];
    if (keyNode === undefined) continue;
    const k = String(keyNode.value);
    const first = seen.get(k);
    if (first !== undefined) return { path: [...path, k], first, second: keyNode.offset };
    seen.set(k, keyNode.offset);
  }
  return undefined;
}

/** A key written twice in any object within `node`, `node` included. */
function deepDuplicate(node: Node, path: readonly string[]): DuplicateKey | undefined {
  const here = duplicateIn(node, path);
  if (here !== undefined) return here;
  for (const child of node.children ?? []) {
    if (child.type === 'property') {
      const value = child.children?.[1];
      const found = value && deepDuplicate(value, [...path, String(child.children?.[0]?.value)]);
      if (found) return found;
    } else {
      const found = deepDuplicate(child, path);
      if (found) return found;
    }
  }
  return undefined;
}
