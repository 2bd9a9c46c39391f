// The tools held for a person's review, from the store alone (docs/servers.md, "Review"): what the
// console's Servers view shows and decides on, without the workspace file and without starting a
// server. A held tool is the latest definition listed of a (server, tool) — its sighting last seen
// most recently — when that definition is neither the accepted one nor rejected.
import { createHash } from 'node:crypto';
import type { ToolPin, ToolSighting } from '@harness/store';
import { toolMemberId } from '@harness/workspace';
import { type DiffLine, definitionDiff } from './definition-diff';

/** One tool definition waiting for a person's decision. */
export interface HeldTool {
  readonly server: string;
  /** The manifest id it would have, `<server>.<member>`. */
  readonly id: string;
  /** The name the server lists it under. */
  readonly upstream: string;
  /** The hash of the definition held (SV-17): what a decision names (SV-19). */
  readonly hash: string;
  /** The definition held, as the RFC 8785 JSON text `hash` is over; `null` when the store has none. */
  readonly definition: string | null;
  /** `new`: no definition of this tool was accepted; `changed`: another one was. */
  readonly change: 'new' | 'changed';
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly accepted: {
    readonly hash: string;
    readonly at: string;
    readonly by: string;
    readonly via: string;
  } | null;
  /** The definition against the accepted one (every member of a new tool); empty when `definition` is `null`. */
  readonly diff: readonly DiffLine[];
}

/** Lowercase hex SHA-256 of a definition's text: its definition hash when the text is its RFC 8785 JSON. */
export const definitionTextHash = (definition: string): string =>
  createHash('sha256').update(definition).digest('hex');

const keyOf = (server: string, tool: string): string => `${server}\n${tool}`;

/** Parses a stored definition; a text that is not a JSON object gives none. */
function parsed(text: string | null | undefined): Readonly<Record<string, unknown>> | undefined {
  if (text === null || text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The latest sighting of each (server, tool): the one last seen most recently (on a tie, the one
 * first seen later).
 */
export function latestSightings(sightings: readonly ToolSighting[]): Map<string, ToolSighting> {
  const latest = new Map<string, ToolSighting>();
  for (const s of sightings) {
    const key = keyOf(s.server, s.tool);
    const was = latest.get(key);
    if (
      was === undefined ||
      s.last_seen > was.last_seen ||
      (s.last_seen === was.last_seen && s.first_seen > was.first_seen)
    )
      latest.set(key, s);
  }
  return latest;
}

/** The tools held for review, by server and tool: the computation every reader of the store shares. */
export function heldTools(pins: readonly ToolPin[], sightings: readonly ToolSighting[]): HeldTool[] {
  const pinOf = new Map(pins.map((p) => [keyOf(p.server, p.tool), p]));
  const held: HeldTool[] = [];
  for (const s of latestSightings(sightings).values()) {
    const pin = pinOf.get(keyOf(s.server, s.tool));
    if (pin?.hash === s.hash || s.rejected_at !== null) continue;
    const listed = parsed(s.definition);
    held.push({
      server: s.server,
      id: `${s.server}.${toolMemberId(s.tool)}`,
      upstream: s.tool,
      hash: s.hash,
      definition: s.definition,
      change: pin === undefined ? 'new' : 'changed',
      firstSeen: s.first_seen,
      lastSeen: s.last_seen,
      accepted:
        pin === undefined ? null : { hash: pin.hash, at: pin.accepted_at, by: pin.accepted_by, via: pin.via },
      diff: listed === undefined ? [] : definitionDiff(parsed(pin?.definition), listed),
    });
  }
  const order = (h: HeldTool) => `${h.server}\n${h.upstream}`;
  return held.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/**
 * Whether a decision on `server`'s `tool` naming `hash` decides what is held now (SV-19): the held
 * tool when it does, else why not, in words a person reads.
 */
export function heldFor(
  held: readonly HeldTool[],
  server: string,
  tool: string,
  hash: string,
):
  | { ok: true; tool: HeldTool & { definition: string } }
  | { ok: false; code: 'not_held' | 'stale' | 'no_definition'; message: string } {
  const now = held.find((h) => h.server === server && h.upstream === tool);
  if (now === undefined) {
    return {
      ok: false,
      code: 'not_held',
      message: `no definition of ${server}.${toolMemberId(tool)} is held for review now (it was decided already, or never listed); nothing was recorded`,
    };
  }
  if (now.hash !== hash.toLowerCase()) {
    return {
      ok: false,
      code: 'stale',
      message: `${now.id}: the definition held now has sha256 ${now.hash}, not ${hash}; it changed since it was shown, so nothing was recorded; review it again`,
    };
  }
  if (now.definition === null || definitionTextHash(now.definition) !== now.hash) {
    return {
      ok: false,
      code: 'no_definition',
      message: `${now.id}: the store has no definition of sha256 ${now.hash} to show (it was recorded before the store kept definitions), so it cannot be decided here; decide it with harness servers review ${server}, or let the broker list it again`,
    };
  }
  return { ok: true, tool: now as HeldTool & { definition: string } };
}
