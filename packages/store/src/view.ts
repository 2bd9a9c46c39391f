// What every store builds the same way from its rows: the loom view `loom.inspect` shows, the
// receipt a compose returns, and an approval record.
import type {
  ApprovalPlan,
  ApprovalPreviewOutput,
  ApprovalRecord,
  ComponentView,
  DecisionAssertion,
  LoomView,
  Receipt,
} from './types';

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

/**
 * A receipt row as a store reads it: the id lists are JSON text, and `created` is a boolean in
 * PostgreSQL and `0`/`1` in SQLite.
 */
export interface ReceiptRow {
  request_id: string;
  loom_id: string;
  version: number;
  created: boolean | number;
  component_ids: string;
  operation_ids: string;
  displaced: string;
  committed_at: string;
}

/** The receipt of a stored row, with the wire's field names. */
export function receiptView(row: ReceiptRow): Receipt {
  return {
    loom_id: row.loom_id,
    request_id: row.request_id,
    version: row.version,
    created: row.created === true || row.created === 1,
    component_ids: JSON.parse(row.component_ids) as string[],
    operation_ids: JSON.parse(row.operation_ids) as string[],
    displaced: JSON.parse(row.displaced) as string[],
    committed_at: row.committed_at,
  };
}

/** An approval row as a store reads it: the JSON columns as text; args, argv and tier are NULL in rows of an older writer. */
export interface ApprovalRow
  extends Omit<ApprovalRecord, 'arg_names' | 'args' | 'argv' | 'assertion' | 'plan' | 'preview'> {
  preview: string | null;
  arg_names: string;
  plan: string | null;
  args: string | null;
  argv: string | null;
  assertion: string | null;
}

/** The approval record of a stored row. */
export function approvalView(row: ApprovalRow): ApprovalRecord {
  return {
    ...row,
    arg_names: JSON.parse(row.arg_names) as string[],
    args: row.args === null ? null : (JSON.parse(row.args) as Record<string, unknown>),
    argv: row.argv === null ? null : (JSON.parse(row.argv) as string[]),
    tier: row.tier ?? null,
    display: row.display ?? null,
    preview: row.preview == null ? null : (JSON.parse(row.preview) as ApprovalPreviewOutput),
    plan_hash: row.plan_hash ?? null,
    plan: row.plan == null ? null : (JSON.parse(row.plan) as ApprovalPlan),
    session: row.session ?? null,
    decided_via: row.decided_via ?? null,
    assertion: row.assertion == null ? null : (JSON.parse(row.assertion) as DecisionAssertion),
  };
}
