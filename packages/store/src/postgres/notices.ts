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
    claimNotice: (n) => {
      // The transaction whose INSERT wrote the claim, as that INSERT answered. Run again after a
      // lost COMMIT, the claim finds the row: written by that transaction, it is this claim's own
      // (its COMMIT landed) and the announcement is sent, since nothing sends one before its claim
      // returns; written by any other, it is another claim's and this one is skipped.
      let inserted: string | undefined;
      return db.tx(
        'claim an approval notice',
        async (tx) => {
          const at = (n.now ?? new Date()).toISOString();
          const rows = await tx.query<{ xmin: string }>(
            `INSERT INTO approval_notices (approval, target, event, status, attempts, created_at, updated_at)
             VALUES ($1, $2, $3, 'sending', 0, $4, $4) ON CONFLICT (approval, target, event) DO NOTHING
             RETURNING xmin::text AS xmin`,
            [n.approval, n.target, n.event, at],
          );
          const mine = rows[0]?.xmin;
          if (mine !== undefined) {
            inserted = mine;
            return true;
          }
          if (inserted === undefined) return false;
          const landed = await tx.query(
            'SELECT id FROM approval_notices WHERE approval = $1 AND target = $2 AND event = $3 AND xmin::text = $4',
            [n.approval, n.target, n.event, inserted],
          );
          return landed.length === 1;
        },
        { idempotent: true },
      );
    },
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
