// The verifier of audit chains (docs/audit.md): events in `seq` order and the signed checkpoints
// in, the first event that was changed, removed, inserted or reordered out, or where the tail was
// cut. One pass, constant memory per chain, so a store or an export of millions of events streams.
import { checkpointText, eventHash, GENESIS, type HashedEvent } from './audit-chain';
import { chainOf, verifySignature } from './audit-key';
import { verifyDecisionAssertion, verifyToolDecisionAssertion } from './decision-audit';
import type { AuditCheckpoint, ChainedAuditEvent, DecisionAssertion } from './types';

/** What kind of tampering the first problem is. */
export type AuditProblemKind =
  /** An event's content no longer matches its hash, or the hash its successor recorded. */
  | 'changed'
  /** Events are missing between two events, or before a chain's first event. */
  | 'removed'
  /** An event claims a position another event holds. */
  | 'inserted'
  /** Events are out of their chain's order. */
  | 'reordered'
  /** A chain ends before the position a checkpoint signed. */
  | 'cut'
  /** A stretch of a chain is consistent but not what a checkpoint signed: re-hashed without the key. */
  | 'rewritten'
  /** A checkpoint's signature does not verify, or its key is not its chain's. */
  | 'forged_checkpoint'
  /** A chain's start is not signed (no genesis or prune checkpoint), or a pinned key's chain is absent. */
  | 'unanchored'
  /** An export's trailer is missing, does not match its lines, or is not signed by its key. */
  | 'export'
  /** A decision's passkey assertion does not sign that decision (docs/console.md, "Signed decisions"). */
  | 'forged_decision'
  /** The instance's key is not the key recorded for it, or given with `--public-key`: it was replaced. */
  | 'replaced_key'
  /** The store's history is not the one an earlier export holds: rewritten or cut after that export. */
  | 'diverged';

/** The first problem a verification found. */
export interface AuditProblem {
  kind: AuditProblemKind;
  chain: string | null;
  /** The event named (its `seq`), when one can be. */
  seq: number | null;
  message: string;
}

/** What a verification found of one chain. */
export interface AuditChainReport {
  chain: string;
  /** The key its checkpoints are signed with (`null`: none). */
  publicKey: string | null;
  /** True when that key is one the verification was given to pin. */
  pinned: boolean;
  events: number;
  /** Its first and last positions present (`null` when it holds no event). */
  from: number | null;
  to: number | null;
  /** The newest position a checkpoint signed and the events matched (0: none yet). */
  signedThrough: number;
  /** Events after {@link signedThrough}: a cut among them would not show. */
  unsigned: number;
}

/** The result of a verification. */
export interface AuditVerification {
  ok: boolean;
  /** Events read (chained and not). */
  events: number;
  /** Events recorded before the store kept chains: not covered. */
  unchained: number;
  chains: AuditChainReport[];
  problem?: AuditProblem;
}

interface Link {
  seq: number;
  n: number;
  hash: string;
  prev: string;
}

interface ChainState {
  chain: string;
  publicKey: string | null;
  /** Checkpoints by position. */
  at: Map<number, AuditCheckpoint[]>;
  /** The greatest position a checkpoint signed. */
  newest: AuditCheckpoint | undefined;
  last: Link | undefined;
  events: number;
  from: number | null;
  signedThrough: number;
  signedSeq: number | null;
  /** A suspicious event the next one decides: a gap (removed or reordered), or a repeated position. */
  pending: { kind: 'gap' | 'repeat'; before: Link; event: Link } | undefined;
}

/** The streaming verifier: {@link event} for each event in `seq` order, then {@link finish}. */
export class AuditVerifier {
  private readonly chains = new Map<string, ChainState>();
  private readonly pinned: Set<string>;
  private problem: AuditProblem | undefined;
  private events = 0;
  private unchained = 0;

  /**
   * `checkpoints`: every checkpoint of the store or export. `publicKeys`: the keys to pin
   * (`ed25519:…`); each one's chain must be present and signed by it.
   */
  constructor(checkpoints: readonly AuditCheckpoint[], publicKeys: readonly string[] = []) {
    this.pinned = new Set(publicKeys);
    for (const key of publicKeys) this.state(chainOf(key)).publicKey = key;
    for (const c of checkpoints) {
      if (this.problem !== undefined) break;
      this.checkpoint(c);
    }
  }

  /** True while no problem has been found. */
  get ok(): boolean {
    return this.problem === undefined;
  }

  private state(chain: string): ChainState {
    let s = this.chains.get(chain);
    if (s === undefined) {
      s = {
        chain,
        publicKey: null,
        at: new Map(),
        newest: undefined,
        last: undefined,
        events: 0,
        from: null,
        signedThrough: 0,
        signedSeq: null,
        pending: undefined,
      };
      this.chains.set(chain, s);
    }
    return s;
  }

  private fail(kind: AuditProblemKind, chain: string | null, seq: number | null, message: string): false {
    this.problem ??= { kind, chain, seq, message };
    return false;
  }

  private checkpoint(c: AuditCheckpoint): void {
    const forged = (why: string) =>
      this.fail(
        'forged_checkpoint',
        c.chain,
        null,
        `checkpoint ${c.id} of chain ${c.chain} (position ${c.n}) ${why}`,
      );
    if (!c.publicKey.startsWith('ed25519:') || chainOf(c.publicKey) !== c.chain) {
      forged(
        `is signed with the key of chain ${chainOf(c.publicKey)}, not its own: it was written without chain ${c.chain}'s key`,
      );
      return;
    }
    if (!verifySignature(c.publicKey, checkpointText(c), c.signature)) {
      forged('has a signature that does not verify: it was changed after it was signed');
      return;
    }
    const s = this.state(c.chain);
    s.publicKey = c.publicKey;
    const list = s.at.get(c.n);
    if (list === undefined) s.at.set(c.n, [c]);
    else list.push(c);
    if (s.newest === undefined || c.n > s.newest.n) s.newest = c;
  }

  /** Checks one event (in `seq` order); false once a problem is found (the rest need not be read). */
  event(e: ChainedAuditEvent): boolean {
    if (this.problem !== undefined) return false;
    this.events++;
    // Only a decision carrying an assertion costs a signature check; every other event costs nothing here.
    if (e.phase === 'approval' && e.payload.assertion !== undefined && !this.decisionSigned(e)) return false;
    if (e.phase === 'pin' && e.payload.assertion !== undefined && !this.toolDecisionSigned(e)) return false;
    if (e.chain === null || e.n === null || e.prev === null || e.hash === null) {
      if (this.events - 1 > this.unchained) {
        return this.fail(
          'inserted',
          null,
          e.seq,
          `event ${e.seq} has no chain fields but comes after chained events: it was inserted (or its chain fields erased)`,
        );
      }
      this.unchained++;
      return true;
    }
    const s = this.state(e.chain);
    const link: Link = { seq: e.seq, n: e.n, hash: e.hash, prev: e.prev };
    if (s.pending !== undefined) return this.settle(s, link);
    const computed = eventHash(e as HashedEvent);
    if (computed !== e.hash) {
      return this.fail(
        'changed',
        e.chain,
        e.seq,
        `event ${e.seq} was changed: its content no longer matches its hash`,
      );
    }
    const last = s.last;
    if (last === undefined) {
      if (!this.start(s, link)) return false;
    } else if (link.n === last.n + 1) {
      if (link.prev !== last.hash) {
        return this.fail(
          'changed',
          e.chain,
          last.seq,
          `event ${last.seq} was changed: event ${e.seq}, next in chain ${e.chain}, recorded another hash for it`,
        );
      }
    } else if (link.n === last.n && link.prev === last.prev) {
      s.pending = { kind: 'repeat', before: last, event: link };
      return true;
    } else if (link.n > last.n + 1) {
      s.pending = { kind: 'gap', before: last, event: link };
      return true;
    } else {
      return this.fail(
        'inserted',
        e.chain,
        e.seq,
        `event ${e.seq} claims position ${link.n} of chain ${e.chain}, which an earlier event holds (event ${last.seq} is at ${last.n}): it was inserted`,
      );
    }
    return this.accept(s, link);
  }

  /** Checks the passkey assertion a decision event carries. */
  private decisionSigned(e: ChainedAuditEvent): boolean {
    const check = verifyDecisionAssertion(
      String(e.payload.approvalId),
      e.outcome,
      e.payload.assertion as DecisionAssertion,
    );
    if (check.ok) return true;
    return this.fail(
      'forged_decision',
      e.chain,
      e.seq,
      `event ${e.seq}, the decision ${e.outcome} on approval ${String(e.payload.approvalId)}, carries a passkey assertion that does not sign it: ${check.reason}`,
    );
  }

  /** Checks the passkey assertion a decision on a server tool's definition carries (its hash the one decided). */
  private toolDecisionSigned(e: ChainedAuditEvent): boolean {
    const assertion = e.payload.assertion as DecisionAssertion;
    const check =
      assertion.planHash === e.payload.hash
        ? verifyToolDecisionAssertion(String(e.payload.server), String(e.payload.tool), e.outcome, assertion)
        : { ok: false as const, reason: `it binds hash ${assertion.planHash}, not the one decided` };
    if (check.ok) return true;
    return this.fail(
      'forged_decision',
      e.chain,
      e.seq,
      `event ${e.seq}, the decision ${e.outcome} on ${String(e.payload.server)}'s tool ${String(e.payload.tool)} (sha256 ${String(e.payload.hash)}), carries a passkey assertion that does not sign it: ${check.reason}`,
    );
  }

  /** The first event of a chain: its start must be signed (genesis, or a prune that ends before it). */
  private start(s: ChainState, e: Link): boolean {
    if (e.n === 1) {
      if (e.prev !== GENESIS) {
        return this.fail(
          'changed',
          s.chain,
          e.seq,
          `event ${e.seq} was changed: it is first in chain ${s.chain} but does not start from the genesis hash`,
        );
      }
      if (!(s.at.get(0) ?? []).some((c) => c.kind === 'genesis')) {
        return this.fail(
          'unanchored',
          s.chain,
          e.seq,
          `chain ${s.chain} starts at event ${e.seq} with no signed genesis checkpoint: its checkpoints were removed, or it was written without the instance key`,
        );
      }
      return true;
    }
    if ((s.at.get(e.n - 1) ?? []).some((c) => c.kind === 'prune' && c.head === e.prev)) return true;
    const prunes = [...s.at.values()].flat().filter((c) => c.kind === 'prune' && c.n < e.n - 1);
    const boundary = prunes.reduce((m, c) => Math.max(m, c.n), -1);
    if (boundary >= 0 || (s.at.get(0) ?? []).length > 0) {
      const from = Math.max(boundary, 0) + 1;
      return this.fail(
        'removed',
        s.chain,
        e.seq,
        `event(s) at position ${from}${from < e.n - 1 ? `-${e.n - 1}` : ''} of chain ${s.chain}, before event ${e.seq}, were removed without a signed prune checkpoint`,
      );
    }
    return this.fail(
      'unanchored',
      s.chain,
      e.seq,
      `chain ${s.chain} starts at event ${e.seq} (position ${e.n}) with no signed checkpoint of where it starts: the events before it were removed`,
    );
  }

  /** Takes an event into its chain and compares it with a checkpoint signed at its position. */
  private accept(s: ChainState, e: Link): boolean {
    s.last = e;
    s.events++;
    s.from ??= e.n;
    const signed = s.at.get(e.n);
    if (signed !== undefined) {
      const wrong = signed.find((c) => c.head !== e.hash);
      if (wrong !== undefined) {
        const from = s.signedSeq === null ? 'its first event' : `event ${s.signedSeq}`;
        return this.fail(
          'rewritten',
          s.chain,
          e.seq,
          `chain ${s.chain} from ${from} to event ${e.seq} is not what checkpoint ${wrong.id} signed at position ${e.n} (${wrong.at}): an event in it was changed and the chain re-hashed without the key`,
        );
      }
      s.signedThrough = e.n;
      s.signedSeq = e.seq;
    }
    return true;
  }

  /** Decides a pending gap or repeated position with the event that follows it in its chain. */
  private settle(s: ChainState, next: Link | undefined): false {
    const p = s.pending as NonNullable<ChainState['pending']>;
    s.pending = undefined;
    const { before, event } = p;
    if (p.kind === 'gap') {
      if (next !== undefined && next.n > before.n && next.n < event.n) {
        return this.fail(
          'reordered',
          s.chain,
          event.seq,
          `event ${event.seq} is out of order: it holds position ${event.n} of chain ${s.chain}, but event ${next.seq} after it holds position ${next.n}`,
        );
      }
      const missing = before.n + 1 === event.n - 1 ? `${before.n + 1}` : `${before.n + 1}-${event.n - 1}`;
      return this.fail(
        'removed',
        s.chain,
        before.seq,
        `the event(s) at position ${missing} of chain ${s.chain}, after event ${before.seq} and before event ${event.seq}, were removed`,
      );
    }
    // Two events hold one position: the one the following event links to is the original.
    const inserted = next !== undefined && next.prev === event.hash ? before : event;
    return this.fail(
      'inserted',
      s.chain,
      inserted.seq,
      `event ${inserted.seq} was inserted: it claims position ${event.n} of chain ${s.chain}, which event ${inserted === before ? event.seq : before.seq} holds`,
    );
  }

  /** The verification: pending suspicions settled, every chain's end compared with its newest checkpoint. */
  finish(): AuditVerification {
    for (const s of this.chains.values()) {
      if (this.problem !== undefined) break;
      if (s.pending !== undefined) {
        this.settle(s, undefined);
        break;
      }
      const end = s.last?.n ?? this.startBoundary(s);
      if (s.newest !== undefined && s.newest.n > end) {
        const where =
          s.last === undefined
            ? `holds no event after position ${end}`
            : `ends at event ${s.last.seq} (position ${end})`;
        this.fail(
          'cut',
          s.chain,
          s.last?.seq ?? null,
          `chain ${s.chain} ${where}, but checkpoint ${s.newest.id} signed position ${s.newest.n}: the events after it were removed`,
        );
      } else if (
        s.publicKey !== null &&
        this.pinned.has(s.publicKey) &&
        s.newest === undefined &&
        s.last === undefined
      ) {
        this.fail(
          'unanchored',
          s.chain,
          null,
          `the store holds nothing of chain ${s.chain} (key ${s.publicKey}): not even its signed start; its events and checkpoints were removed`,
        );
      }
    }
    const chains = [...this.chains.values()]
      .filter(
        (s) =>
          s.events > 0 || s.newest !== undefined || (s.publicKey !== null && this.pinned.has(s.publicKey)),
      )
      .map(
        (s): AuditChainReport => ({
          chain: s.chain,
          publicKey: s.publicKey,
          pinned: s.publicKey !== null && this.pinned.has(s.publicKey),
          events: s.events,
          from: s.from,
          to: s.last?.n ?? null,
          signedThrough: s.signedThrough,
          unsigned: s.last === undefined ? 0 : s.last.n - Math.max(s.signedThrough, (s.from ?? 1) - 1),
        }),
      );
    return {
      ok: this.problem === undefined,
      events: this.events,
      unchained: this.unchained,
      chains,
      ...(this.problem === undefined ? {} : { problem: this.problem }),
    };
  }

  /** Where a chain with no events starts: its newest prune checkpoint, else 0. */
  private startBoundary(s: ChainState): number {
    let n = 0;
    for (const list of s.at.values()) for (const c of list) if (c.kind === 'prune' && c.n > n) n = c.n;
    return n;
  }

  /** Records a problem found outside the events (an export's trailer). */
  report(problem: AuditProblem): void {
    this.problem ??= problem;
  }
}
