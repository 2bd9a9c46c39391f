// Reading the host's Loom answers (receipts, loom views) into what the model may see: documented
// fields only, identifiers cut short, no references or renderer internals.
import type { AnswerBodies } from '@harness/protocol';
import type { LoomReceipt, LoomView } from './outcome';
import { cutId } from './shape';

/** A compose receipt as a host sends it. */
type HostReceipt = AnswerBodies['composed']['receipt'];

/** Reads a compose receipt, keeping only its documented fields, each identifier cut short. */
export function readReceipt(v: HostReceipt): LoomReceipt {
  const r: LoomReceipt = {
    loom_id: cutId(v.loom_id),
    request_id: cutId(v.request_id),
    version: v.version,
    created: v.created,
    component_ids: v.component_ids.map((s) => cutId(s)),
    operation_ids: v.operation_ids.map((s) => cutId(s)),
    displaced: v.displaced.map((s) => cutId(s)),
  };
  if (v.committed_at !== undefined) r.committed_at = cutId(v.committed_at, 64);
  return r;
}

/** A loom view without references or renderer internals; `piece` reads as `pattern`. */
export function readView(v: AnswerBodies['inspected']): LoomView {
  const components = v.components.map((c) => {
    const kind = c.kind === undefined ? 'unknown' : c.kind === 'piece' ? 'pattern' : c.kind;
    const out: LoomView['components'][number] = { id: typeof c.id === 'string' ? cutId(c.id) : null, kind };
    if (typeof c.title === 'string') out.title = c.title.slice(0, 200);
    if (typeof c.stage === 'string') out.stage = cutId(c.stage);
    if (c.position !== undefined) out.position = c.position;
    return out;
  });
  return {
    loom_id: cutId(v.loom_id),
    version: v.version,
    components,
    layout: {
      stages: v.layout?.stages ?? {},
      shelf: v.layout?.shelf ?? [],
      focus: v.layout?.focus ?? null,
    },
  };
}
