// The caller's side of a piece's `loomComponents` (seed 001, LA-147, LA-148): before leaving out a
// Pattern's ordinary placement, check both ids against a freshly read manifest of the loom. A legacy
// exact-reference comparison may prove membership on its own; no correlation alone proves nothing
// either way (it does not force a placement).

import type { Piece } from '../../answers';

/** The parts of a freshly read loom the check needs. */
export interface Manifest {
  loom_id: string;
  components: { id: string; ref?: string | null }[];
}

export type Membership =
  /** Both ids are in the freshly read manifest: the Pattern is already in that loom. */
  | { member: true; by: 'loomComponents' | 'legacy-reference'; loomId: string; componentId: string }
  /** Nothing proves membership: place the Pattern the ordinary way. */
  | { member: false };

/**
 * Decides whether a piece is already a member of a loom. `read` must read the loom afresh (not a
 * cached copy); `legacyRef`, when the caller knows the Pattern's own reference, is compared exactly
 * with the manifest's component references.
 */
export async function pieceMembership(
  piece: Piece,
  read: (loomId: string) => Promise<Manifest | undefined>,
  legacy?: { loomId: string; ref: string },
): Promise<Membership> {
  for (const { loomId, componentId } of piece.loomComponents ?? []) {
    const manifest = await read(loomId);
    if (manifest?.loom_id === loomId && manifest.components.some((c) => c.id === componentId))
      return { member: true, by: 'loomComponents', loomId, componentId };
  }
  if (legacy !== undefined) {
    const manifest = await read(legacy.loomId);
    const found = manifest?.components.find((c) => c.ref === legacy.ref);
    if (manifest !== undefined && found !== undefined)
      return { member: true, by: 'legacy-reference', loomId: legacy.loomId, componentId: found.id };
  }
  return { member: false };
}
