// Approval notices in PostgreSQL: the delivery log of the announcements of approvals
// (docs/notify.md). Several hosts share it: the UNIQUE (approval, target, event) key makes the
// claim an insert only one of them wins.
import type { ApprovalNotice, Store } from '../types';
import type { PgDb } from './client';

type NoticePart = Pick<Store, 'claimNotice' | 'recordNotice' | 'listNotices'>;

const COLUMNS = 'id, approval, target, event, status, attempts, http_status, error, created_at, updated_at';

/** The notices part of the PostgreSQL store. */
export function pgNotices(db: PgDb): NoticePart {
  return {
    claimNotice: (n) =>
      db.tx(
        'claim an approval notice',
        async (tx) => {
          const at = (n.now ?? new Date()).toISOString();
          const rows = await tx.query(
            `INSERT INTO approval_notices (approval, target, event, status, attempts, created_at, updated_at)
             VALUES ($1, $2, $3, 'sending', 0, $4, $4) ON CONFLICT (approval, target, event) DO NOTHING RETURNING id`,
            [n.approval, n.target, n.event, at],
          );
          return rows.length === 1;
        },
        // Run again after a lost COMMIT, a claim that landed reads as taken: the announcement is
        // then skipped rather than sent twice.
        { idempotent: true },
      ),
    recordNotice: (u) =>
      db.tx(
        'record an approval notice',
        async (tx) => {
          await tx.query(
            `UPDATE approval_notices SET status = $1, attempts = $2, http_status = $3, error = $4, updated_at = $5
             WHERE approval = $6 AND target = $7 AND event = $8`,
            [
              u.status,
              u.attempts,
              u.httpStatus,
              u.error,
              (u.now ?? new Date()).toISOString(),
              u.approval,
              u.target,
              u.event,
            ],
          );
        },
        { idempotent: true },
      ),
    listNotices: (approval) =>
      db.tx(
        "read an approval's notices",
        async (tx) => {
          const rows = await tx.query<ApprovalNotice>(
            `SELECT ${COLUMNS} FROM approval_notices WHERE approval = $1 ORDER BY id`,
            [approval],
          );
          // BIGINT identities arrive as strings.
          return rows.map((r) => ({ ...r, id: Number(r.id) }));
        },
        { idempotent: true, readOnly: true },
      ),
  };
}
