// The loom view `loom.inspect` shows, built the same way by every store from its rows.
import type { ComponentView, LoomView } from './types';

/** The kind a stored reference reads as; a legacy `piece:` reference reads as `pattern` (LA-67). */
export function refKind(ref: string): string {
  const kind = ref.slice(0, Math.max(0, ref.indexOf(':')));
  return kind === 'piece' ? 'pattern' : kind;
}

/** A loom row as a store reads it. */
export interface LoomRow {
  id: string;
  version: number;
  focus: string | null;
  created_at: string;
  updated_at: string;
}

/** A component row as a store reads it, in position order. */
export interface ComponentRow {
  id: string;
  ref: string;
  title: string | null;
  stage: string | null;
  position: number;
  added_version: number;
}

/** The view of one loom: metadata of its components (never their references) and its layout. */
export function loomView(loom: LoomRow, rows: readonly ComponentRow[]): LoomView {
  const components: ComponentView[] = rows.map((r) => ({
    id: r.id,
    kind: refKind(r.ref),
    title: r.title,
    stage: r.stage,
    position: r.position,
    added_version: r.added_version,
  }));
  const stages: Record<string, string[]> = {};
  const shelf: string[] = [];
  for (const c of components) {
    if (c.stage === null) shelf.push(c.id);
    else {
      const list = stages[c.stage] ?? [];
      list.push(c.id);
      stages[c.stage] = list;
    }
  }
  return {
    loom_id: loom.id,
    version: loom.version,
    created_at: loom.created_at,
    updated_at: loom.updated_at,
    components,
    layout: { stages, shelf, focus: loom.focus },
  };
}
