import { PacksErrorCode, type PacksIssue, packsIssue } from './errors';
import type { Pack, PackCommand, PackSet, UnavailablePack } from './types';

/** What a lookup reads of a pack set: the packs offered and those left out. */
export type PackScope = Pick<PackSet, 'packs' | 'unavailable'>;

/** The command with manifest id `id` (`<pack>.<command>`), or `undefined`. */
export function getCommand(set: PackScope, id: string): PackCommand | undefined {
  const dot = id.indexOf('.');
  if (dot < 0) return undefined;
  const pack = getPack(set, id.slice(0, dot));
  const name = id.slice(dot + 1);
  return pack?.commands.find((c) => c.id === name);
}

/** The available pack with id `id`, or `undefined`. */
export function getPack(set: PackScope, id: string): Pack | undefined {
  return set.packs.find((p) => p.id === id);
}

/** The unavailable (left-out optional) pack that would hold manifest id `id`, if any. */
export function unavailableFor(set: PackScope, id: string): UnavailablePack | undefined {
  return set.unavailable.find((u) => u.commands.includes(id) || u.id === id);
}

/** Every manifest id of the pack set, in declaration order. */
export function allCommandIds(set: PackScope): string[] {
  return set.packs.flatMap((p) => p.commands.map((c) => c.manifestId));
}

/** A short list for messages: `a, b, c` (or `none`), cut after `max` entries. */
export function listForMessage(items: readonly string[], max = 20): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown}, … (${items.length - max} more)` : shown;
}

/** `unknown command "x"; available: …` — names what was asked and what exists (CP-28). */
export function unknownCommandMessage(set: PackScope, id: string): string {
  const gone = unavailableFor(set, id);
  if (gone) {
    return `command "${id}" is not available: pack "${gone.id}" was left out because ${gone.reason}`;
  }
  const dot = id.indexOf('.');
  const pack = dot < 0 ? undefined : getPack(set, id.slice(0, dot));
  if (pack) {
    return `unknown command "${id}": pack "${pack.id}" has the commands ${listForMessage(pack.commands.map((c) => c.manifestId))}`;
  }
  return `unknown command "${id}": expected <pack>.<command>; available: ${listForMessage(allCommandIds(set))}`;
}

/** The `unknown_command` issue for `id`: its message, and the ids it could have been. */
export function unknownCommandIssue(set: PackScope, id: string): PacksIssue {
  const gone = unavailableFor(set, id);
  const dot = id.indexOf('.');
  const pack = dot < 0 ? undefined : getPack(set, id.slice(0, dot));
  const expected = gone ? gone.commands : pack ? pack.commands.map((c) => c.manifestId) : allCommandIds(set);
  return packsIssue(PacksErrorCode.unknown_command, unknownCommandMessage(set, id), [], {
    command: id,
    expected,
    ...(gone ? { leftOut: gone.id } : {}),
  });
}
