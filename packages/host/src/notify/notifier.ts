// A host's notifier (docs/notify.md): a new pending approval is announced to each target of the
// workspace's `notify` block, and followed (./follower.ts) until it is decided or expires, which is
// announced too. Each announcement is delivered by ./deliver.ts in the background: the call that
// asked for the approval never waits for it, and a target that hangs delays no other target. One
// target's announcements of one approval go out in order (pending before its decision).

import type { ApprovalRecord, NoticeEvent, Store } from '@harness/store';
import type { NotifyConfig } from '@harness/workspace';
import { type DeliveryEnd, deliver } from './deliver';
import { ApprovalFollower, FOLLOW_EVERY_MS } from './follower';

/** What the command layer tells of the approvals it records. */
export interface ApprovalNotices {
  /**
   * Tells of an approval a call just asked for (or found pending): announces it and follows it to
   * its end, once per host. Returns at once; nothing it does can fail the call.
   */
  requested(record: ApprovalRecord, config: NotifyConfig | undefined): void;
}

/** A host's notifier: {@link ApprovalNotices}, and its end. */
export interface ApprovalNotifier extends ApprovalNotices {
  /** Resolves once every announcement started so far has ended (delivered, failed or skipped). */
  idle(): Promise<void>;
  /** Stops following, cuts attempts under way short (recorded `failed`), and resolves once all ended. */
  close(): Promise<void>;
}

/** Options of {@link createApprovalNotifier}. */
export interface NotifierOptions {
  readonly store: Pick<Store, 'getApproval' | 'claimNotice' | 'recordNotice'>;
  /** Where a failed delivery is told (one line, no URL, no secret). */
  readonly log?: (line: string) => void;
  /** Where the targets' secrets are read (default: this process's environment). */
  readonly env?: NodeJS.ProcessEnv;
  /** How often open approvals are read (default {@link FOLLOW_EVERY_MS}). */
  readonly followEveryMs?: number;
}

/** One followed approval: the notify block it was announced under, and each target's queue. */
interface Followed {
  readonly config: NotifyConfig;
  readonly queues: Map<string, Promise<void>>;
}

/** Creates the notifier of one host. */
export function createApprovalNotifier(options: NotifierOptions): ApprovalNotifier {
  const { store } = options;
  const env = options.env ?? process.env;
  const closing = new AbortController();
  const followed = new Map<string, Followed>();
  const running = new Set<Promise<void>>();

  const announce = (event: NoticeEvent, record: ApprovalRecord, f: Followed): void => {
    for (const target of f.config.targets) {
      const before = f.queues.get(target.name) ?? Promise.resolve();
      const next = before.then(async () => {
        const end = await deliver({
          store,
          target,
          event,
          record,
          link: f.config.link,
          timeoutMs: f.config.timeoutMs,
          attempts: f.config.attempts,
          closing: closing.signal,
          env,
        }).catch(
          (error: unknown): DeliveryEnd => ({
            status: 'failed',
            attempts: 0,
            error: `the store failed: ${(error as Error).name}`,
          }),
        );
        if (end.status === 'failed') {
          options.log?.(
            `harness notify: ${event} of approval ${record.id} to target "${target.name}" failed after ${end.attempts} attempt(s): ${end.error}`,
          );
        }
      });
      f.queues.set(target.name, next);
      running.add(next);
      void next.finally(() => running.delete(next));
    }
  };

  const follower = new ApprovalFollower(store, options.followEveryMs ?? FOLLOW_EVERY_MS, (event, record) => {
    const f = followed.get(record.id);
    followed.delete(record.id);
    if (f !== undefined) announce(event, record, f);
  });

  return {
    requested(record, config) {
      if (config === undefined || record.status !== 'pending' || closing.signal.aborted) return;
      if (followed.has(record.id)) return;
      const f: Followed = { config, queues: new Map() };
      followed.set(record.id, f);
      announce('approval.pending', record, f);
      follower.follow(record.id);
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    async close() {
      await follower.stop();
      closing.abort();
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
