// Approval notices in SQLite: the delivery log of the announcements of approvals (docs/notify.md).
// Its UNIQUE (approval, target, event) key is what makes an announcement happen once: the claim is
// an insert that does nothing when the row is there.
import type Database from 'better-sqlite3';
import type { ApprovalNotice, NoticeEvent, NoticeUpdate, Store } from '../types';
import type { Sync } from './sync';

type NoticePart = Sync<Pick<Store, 'claimNotice' | 'recordNotice' | 'listNotices'>>;

/** The notices part of the SQLite store. */
export function sqliteNotices(db: Database.Database): NoticePart {
  const claim = db.prepare(
    "INSERT INTO approval_notices (approval, target, event, status, attempts, created_at, updated_at) VALUES (?, ?, ?, 'sending', 0, ?, ?) ON CONFLICT (approval, target, event) DO NOTHING",
  );
  const record = db.prepare(
    'UPDATE approval_notices SET status = ?, attempts = ?, http_status = ?, error = ?, updated_at = ? WHERE approval = ? AND target = ? AND event = ?',
  );
  const list = db.prepare<[string], ApprovalNotice>(
    'SELECT id, approval, target, event, status, attempts, http_status, error, created_at, updated_at FROM approval_notices WHERE approval = ? ORDER BY id',
  );
  return {
    claimNotice: (n: { approval: string; target: string; event: NoticeEvent; now?: Date }) => {
      const at = (n.now ?? new Date()).toISOString();
      return claim.run(n.approval, n.target, n.event, at, at).changes === 1;
    },
    recordNotice: (u: NoticeUpdate) => {
      record.run(
        u.status,
        u.attempts,
        u.httpStatus,
        u.error,
        (u.now ?? new Date()).toISOString(),
        u.approval,
        u.target,
        u.event,
      );
    },
    listNotices: (approval: string) => list.all(approval),
  };
}
