// A server tool's manifest id `<server>.<member>` (SV-08). An upstream name that is already a
// member id (a pack command id's pattern: lowercase letters, digits, `_` and `-`, a letter or digit
// first, at most 64 characters) is kept. Any other is mapped by one rule:
//   1. a lowercase letter followed by an uppercase one gets a `_` between them (`getIssue` → `get_Issue`);
//   2. everything is lowercased;
//   3. each run of characters outside [a-z0-9_-] becomes one `_`, and `_` at either end is dropped;
//   4. a name left empty or over 64 characters keeps its first 55 and gains `_` and 8 hex characters
//      of the SHA-256 of the upstream name.
// The upstream name is what goes upstream. Two names of one server that land on one id are an error
// naming both: no tool is ever reached under another's id.
import { createHash } from 'node:crypto';

const MEMBER = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const MAX = 64;

/** The member id of one upstream tool name. */
export function toolMemberId(upstream: string): string {
  if (MEMBER.test(upstream)) return upstream;
  const mapped = upstream
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[_-]+|_+$/g, '');
  if (mapped !== '' && mapped.length <= MAX) return mapped;
  const hash = createHash('sha256').update(upstream).digest('hex').slice(0, 8);
  return `${mapped.slice(0, MAX - 9) || 't'}_${hash}`;
}

/** Every upstream name by its member id, or the names that collide. */
export type ToolIdMap =
  | { readonly ok: true; readonly byMember: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly collisions: readonly (readonly [string, string, string])[] };

/** Maps one server's listing; two names mapping to one id are `[id, first, second]` collisions. */
export function mapToolIds(names: readonly string[]): ToolIdMap {
  const byMember = new Map<string, string>();
  const collisions: [string, string, string][] = [];
  for (const name of names) {
    const member = toolMemberId(name);
    const first = byMember.get(member);
    if (first !== undefined) collisions.push([member, first, name]);
    else byMember.set(member, name);
  }
  return collisions.length === 0 ? { ok: true, byMember } : { ok: false, collisions };
}
