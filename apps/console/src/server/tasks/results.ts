// What a completed task reports beyond its text: `looms` (the collections this turn committed, from
// verified `loom_compose` observations only) and `pieces` (the Patterns this turn named with
// `assign_slug`, each with `loomComponents` when this turn's evidence proves where it was placed).
// Both are read from the turn's paired tool observations, never from prose or earlier turns.

import { isLoomId } from '@harness/protocol';
import type { AuthoredLoom, LoomComponentRef, LoomReceipt, Piece } from '../../answers';
import { type PairedObservation, pairedObservations, type TranscriptItem } from './transcript';

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;

/** A well-formed receipt, copied field by field; `undefined` for anything malformed. */
export function readReceipt(value: unknown): LoomReceipt | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (!isLoomId(r.loom_id)) return undefined;
  if (typeof r.request_id !== 'string' || r.request_id === '') return undefined;
  if (!isCount(r.version) || typeof r.created !== 'boolean') return undefined;
  if (!isStrings(r.component_ids) || !isStrings(r.operation_ids) || !isStrings(r.displaced)) return undefined;
  if (r.committed_at !== undefined && typeof r.committed_at !== 'string') return undefined;
  return {
    loom_id: r.loom_id,
    request_id: r.request_id,
    version: r.version,
    created: r.created,
    component_ids: [...r.component_ids],
    operation_ids: [...r.operation_ids],
    displaced: [...r.displaced],
    ...(r.committed_at === undefined ? {} : { committed_at: r.committed_at }),
  };
}

/** A verified successful compose: its receipt and the components the call asked for. */
interface VerifiedCompose {
  loom: AuthoredLoom;
  /** The request's components, in request order. */
  components: unknown[];
}

/**
 * A `loom_compose` observation that proves a commit: a success of kind `loom-authored` whose
 * receipt is well formed and answers this very request (its request id, and its loom when the call
 * named one).
 */
function verifiedCompose(o: PairedObservation): VerifiedCompose | undefined {
  if (o.call.name !== 'loom_compose') return undefined;
  const { result, args } = o;
  if (result.status !== 'ok' || result.kind !== 'loom-authored') return undefined;
  if (typeof result.replayed !== 'boolean' || !isCount(result.current_version)) return undefined;
  const receipt = readReceipt(result.receipt);
  if (receipt === undefined || result.current_version < receipt.version) return undefined;
  if (receipt.request_id !== args.request_id) return undefined;
  if (args.loom_id !== undefined && receipt.loom_id !== args.loom_id) return undefined;
  const components = Array.isArray(args.components) ? args.components : [];
  return {
    loom: { receipt, replayed: result.replayed, current_version: result.current_version },
    components,
  };
}

/**
 * The turn's `looms`: one entry per verified successful `loom_compose` observation of the turn, in
 * call order (an identical retry in the turn is included, as a replay). Always an array.
 */
export function loomsOfTurn(items: readonly TranscriptItem[], turn: string): AuthoredLoom[] {
  return pairedObservations(items, turn).flatMap((o) => {
    const v = verifiedCompose(o);
    return v === undefined ? [] : [v.loom];
  });
}

/**
 * The turn's `pieces`: one per successful `assign_slug` observation of the turn. A piece carries
 * `loomComponents` only when a verified `loom_compose` of the same turn used exactly the same held
 * token: the receipt's component count matches the request's, and the component ids keep request
 * order, so the id at a component's index is that component. Different tokens for one Pattern are
 * not resolved as aliases: they prove nothing.
 */
export function piecesOfTurn(items: readonly TranscriptItem[], turn: string): Piece[] {
  const observations = pairedObservations(items, turn);
  const composes = observations.flatMap((o) => {
    const v = verifiedCompose(o);
    return v === undefined ? [] : [v];
  });
  const pieces: Piece[] = [];
  for (const o of observations) {
    if (o.call.name !== 'assign_slug' || o.result.status !== 'ok') continue;
    const token = o.args.pattern_token;
    const slug = typeof o.result.slug === 'string' ? o.result.slug : o.args.slug;
    if (typeof token !== 'string' || token === '' || typeof slug !== 'string') continue;
    const refs: LoomComponentRef[] = [];
    for (const { loom, components } of composes) {
      if (components.length !== loom.receipt.component_ids.length) continue;
      components.forEach((c, i) => {
        const componentId = loom.receipt.component_ids[i];
        if (isTokenComponent(c, token) && componentId !== undefined)
          refs.push({ loomId: loom.receipt.loom_id, componentId });
      });
    }
    pieces.push(refs.length > 0 ? { slug, loomComponents: refs } : { slug });
  }
  return pieces;
}

function isTokenComponent(component: unknown, token: string): boolean {
  return (
    typeof component === 'object' &&
    component !== null &&
    (component as Record<string, unknown>).pattern_token === token
  );
}
