// The approvals a host announced and that are still open, followed to their end: one timer per host
// reads each of them every FOLLOW_EVERY_MS — whoever decides (a console, `harness approvals` in
// another process, an MCP client) writes the store, so reading it is how the decision is seen —
// and the timer runs only while one is open. The store does not mark an approval expired until
// something reads it through a listing, so a pending one past its `expires_at` is expired here.
import type { ApprovalRecord, NoticeEvent, Store } from '@harness/store';

/** How often the host reads the approvals it follows: every second. */
export const FOLLOW_EVERY_MS = 1_000;

/** The event that ends an approval as read now; `undefined` while it is still pending, `gone` once pruned. */
export function endOf(record: ApprovalRecord | undefined, now: Date): NoticeEvent | 'gone' | undefined {
  if (record === undefined) return 'gone';
  switch (record.status) {
    case 'pending':
      return Date.parse(record.expires_at) <= now.getTime() ? 'approval.expired' : undefined;
    case 'approved':
    case 'consumed':
      return 'approval.approved';
    case 'denied':
      return 'approval.denied';
    case 'expired':
      return 'approval.expired';
  }
}

/** Follows approvals by id until each ends, then tells `onEnd` how, with the record as read. */
export class ApprovalFollower {
  readonly #store: Pick<Store, 'getApproval'>;
  readonly #everyMs: number;
  readonly #onEnd: (event: NoticeEvent, record: ApprovalRecord) => void;
  readonly #open = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #reading: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(
    store: Pick<Store, 'getApproval'>,
    everyMs: number,
    onEnd: (event: NoticeEvent, record: ApprovalRecord) => void,
  ) {
    this.#store = store;
    this.#everyMs = everyMs;
    this.#onEnd = onEnd;
  }

  /** Whether approval `id` is followed now. */
  has(id: string): boolean {
    return this.#open.has(id);
  }

  /** Follows approval `id` from the next tick on. */
  follow(id: string): void {
    if (this.#stopped) return;
    this.#open.add(id);
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#tick(), this.#everyMs);
    // Following never keeps a process alive that has nothing else to do.
    this.#timer.unref();
  }

  /** Stops following: no read starts after it; resolves once a read under way ends. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#halt();
    await this.#reading;
  }

  #halt(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    // A slow store (a PostgreSQL under load) never stacks reads up.
    this.#reading = this.#reading.then(() => this.#readAll());
  }

  async #readAll(): Promise<void> {
    for (const id of [...this.#open]) {
      if (this.#stopped) return;
      let record: ApprovalRecord | undefined;
      try {
        record = await this.#store.getApproval(id);
      } catch {
        // A store that does not answer now is read again at the next tick.
        continue;
      }
      const end = endOf(record, new Date());
      if (end === undefined) continue;
      this.#open.delete(id);
      if (end !== 'gone' && record !== undefined) this.#onEnd(end, record);
    }
    if (this.#open.size === 0) this.#halt();
  }
}
