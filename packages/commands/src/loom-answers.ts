// Reading the host's Loom answers (receipts, loom views) into what the model may see: documented
// fields only, identifiers cut short, no references or renderer internals.
import { isRecord, isStringArray } from './json';
import type { LoomReceipt, LoomView } from './outcome';
import { cutId } from './shape';

/** Reads a compose receipt, keeping only its documented fields; `undefined` when malformed. */
export function readReceipt(v: unknown): LoomReceipt | undefined {
  if (
    !isRecord(v) ||
    typeof v.loom_id !== 'string' ||
    typeof v.request_id !== 'string' ||
    typeof v.version !== 'number' ||
    typeof v.created !== 'boolean' ||
    !isStringArray(v.component_ids) ||
    !isStringArray(v.operation_ids) ||
    !isStringArray(v.displaced)
  ) {
    return undefined;
  }
  const r: LoomReceipt = {
    loom_id: cutId(v.loom_id),
    request_id: cutId(v.request_id),
    version: v.version,
    created: v.created,
    component_ids: v.component_ids.map((s) => cutId(s)),
    operation_ids: v.operation_ids.map((s) => cutId(s)),
    displaced: v.displaced.map((s) => cutId(s)),
  };
  if (typeof v.committed_at === 'string') r.committed_at = cutId(v.committed_at, 64);
  return r;
}

/** A loom view without references or renderer internals; `piece` reads as `pattern`. */
export function readView(v: unknown): LoomView | undefined {
  if (
    !isRecord(v) ||
    typeof v.loom_id !== 'string' ||
    typeof v.version !== 'number' ||
    !Array.isArray(v.components)
  )
    return undefined;
  const components = v.components.filter(isRecord).map((c) => {
    const kind = typeof c.kind === 'string' ? (c.kind === 'piece' ? 'pattern' : c.kind) : 'unknown';
    const out: LoomView['components'][number] = { id: typeof c.id === 'string' ? cutId(c.id) : null, kind };
    if (typeof c.title === 'string') out.title = c.title.slice(0, 200);
    if (typeof c.stage === 'string') out.stage = cutId(c.stage);
    if (typeof c.position === 'number') out.position = c.position;
    return out;
  });
  const layout = isRecord(v.layout) ? v.layout : {};
  return {
    loom_id: cutId(v.loom_id),
    version: v.version,
    components,
    layout: {
      stages: isRecord(layout.stages) ? layout.stages : {},
      shelf: Array.isArray(layout.shelf) ? layout.shelf : [],
      focus: typeof layout.focus === 'string' ? layout.focus : null,
    },
  };
}
