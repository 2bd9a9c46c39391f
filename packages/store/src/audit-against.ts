// Comparing a store with an earlier export of it (docs/audit.md, "Exports kept elsewhere"): whoever
// holds the instance key can delete events and sign the rest again, and the store alone then
// verifies; an export kept where that holder cannot write still holds the events as they were.
import { verifyAuditExport } from './audit-export';
import type { AuditProblem } from './audit-verify';
import { AUDIT_PAGE_MAX, type Store } from './types';

/** What comparing a store with one export found. */
export type AuditComparison =
  | {
      ok: true;
      /** When the export was written (its header's `exportedAt`). */
      exportedAt: string;
      /** Events of the export found unchanged in the store. */
      compared: number;
      /** Events of the export the store no longer holds behind a signed prune checkpoint. */
      pruned: number;
    }
  | { ok: false; exportedAt: string; problem: AuditProblem };

/** A chain as the export holds it: its first position and the hash of each event from there. */
interface Held {
  from: number;
  hashes: string[];
}

/**
 * Compares the store with an export of it (its lines, without their `\n`): the export must verify
 * (pinned to `publicKeys` when given), and every event it holds must be in the store, at its
 * position, with its hash — unless a signed prune checkpoint removed it since. A store whose history
 * was rewritten, or cut, after the export is `diverged`; an export that does not verify is `export`.
 */
export async function compareAuditWithExport(
  store: Pick<Store, 'readAuditChain' | 'auditCheckpoints'>,
  lines: AsyncIterable<string>,
  options: { publicKeys?: readonly string[] } = {},
): Promise<AuditComparison> {
  const held = new Map<string, Held>();
  let exportedAt = '';
  async function* collect(): AsyncGenerator<string> {
    for await (const text of lines) {
      const value = parseLine(text);
      if (value?.type === 'header' && typeof value.exportedAt === 'string') exportedAt = value.exportedAt;
      if (value?.type === 'event' && typeof value.chain === 'string' && typeof value.hash === 'string') {
        const chain = held.get(value.chain);
        if (chain === undefined) held.set(value.chain, { from: Number(value.n), hashes: [value.hash] });
        else chain.hashes.push(value.hash);
      }
      yield text;
    }
  }
  const verified = await verifyAuditExport(collect(), options);
  const fail = (kind: AuditProblem['kind'], chain: string | null, seq: number | null, message: string) => ({
    ok: false as const,
    exportedAt,
    problem: { kind, chain, seq, message },
  });
  if (!verified.ok) {
    return fail(
      'export',
      verified.problem?.chain ?? null,
      verified.problem?.seq ?? null,
      `the export of ${exportedAt || 'unknown date'} does not verify, so it cannot witness the store: ${verified.problem?.message ?? ''}`,
    );
  }
  const seen = new Map<string, { first: number; last: number }>();
  let compared = 0;
  let after = 0;
  for (;;) {
    const page = await store.readAuditChain(after, AUDIT_PAGE_MAX);
    for (const e of page) {
      if (e.chain === null || e.n === null) continue;
      const chain = held.get(e.chain);
      if (chain === undefined) continue;
      const range = seen.get(e.chain);
      if (range === undefined) seen.set(e.chain, { first: e.n, last: e.n });
      else range.last = e.n;
      const hash = chain.hashes[e.n - chain.from];
      if (hash === undefined) continue;
      if (hash !== e.hash) {
        return fail(
          'diverged',
          e.chain,
          e.seq,
          `event ${e.seq}, at position ${e.n} of chain ${e.chain}, is not the event the export of ${exportedAt} holds there (hash ${hash.slice(0, 12)}…, the store's ${String(e.hash).slice(0, 12)}…): the history was rewritten after that export`,
        );
      }
      compared++;
    }
    const last = page.at(-1);
    if (last === undefined) break;
    after = last.seq;
  }
  const prunedThrough = new Map<string, number>();
  for (const c of await store.auditCheckpoints()) {
    if (c.kind === 'prune') prunedThrough.set(c.chain, Math.max(prunedThrough.get(c.chain) ?? 0, c.n));
  }
  let pruned = 0;
  for (const [chain, h] of held) {
    const end = h.from + h.hashes.length - 1;
    const range = seen.get(chain);
    const prune = prunedThrough.get(chain) ?? 0;
    if (range === undefined ? prune < end : range.last < end) {
      const where =
        range === undefined
          ? 'the store holds no event of it'
          : `the store's chain ends at position ${range.last}`;
      return fail(
        'diverged',
        chain,
        null,
        `the export of ${exportedAt} holds chain ${chain} through position ${end}, but ${where}: events were removed (and the chain signed again, or its key replaced) after that export`,
      );
    }
    const first = range?.first ?? end + 1;
    if (first > h.from) pruned += Math.min(first, end + 1) - h.from;
  }
  return { ok: true, exportedAt, compared, pruned };
}

function parseLine(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
