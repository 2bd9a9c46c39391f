// The hash chain of the audit log (docs/audit.md): the canonical encoding of an event and of a
// checkpoint, the event hash, and how a checkpoint is signed. Both stores and the verifier use
// these functions and nothing else, so what is written and what is checked cannot drift apart.
import { createHash } from 'node:crypto';
import type { AuditCheckpoint, AuditCheckpointKind, AuditEvent, AuditSigner } from './types';

/** The `prev` of a chain's first event, and the head a genesis checkpoint signs: 64 zeros. */
export const GENESIS = '0'.repeat(64);

/** The chain a store appends to when it was opened without an instance key: never signed. */
export const UNSIGNED_CHAIN = 'unsigned';

/**
 * The environment variable that turns a broker's chain off (`off`): to measure what the chain
 * costs a call, never to run with (docs/audit.md, "Measuring the chain").
 */
export const AUDIT_CHAIN_ENV = 'HARNESS_AUDIT_CHAIN';

/** Whether `env` leaves the audit chain on: anything but `HARNESS_AUDIT_CHAIN=off`. */
export function auditChainOn(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env[AUDIT_CHAIN_ENV] !== 'off';
}

/** How often a store that appends writes a signed checkpoint of its chain's head: every 5 minutes. */
export const CHECKPOINT_EVERY_MS = 300_000;

/**
 * RFC 8785 (JSON Canonicalization Scheme) serialization of a JSON value: object members sorted by
 * their names' UTF-16 code units, no whitespace, strings and numbers as ECMAScript's JSON.stringify
 * writes them (which is what RFC 8785 prescribes; a lone surrogate, which RFC 8785 refuses, is
 * written as its `\udXXX` escape, as JSON.stringify does).
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON has no form for the number ${value}`);
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
        return `${out}]`;
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return canonicalJson((value as { toJSON(): unknown }).toJSON());
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      // Sorted by UTF-16 code units (the default sort), as RFC 8785 orders members.
      if (keys.length > 1) keys.sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const member = record[key];
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`canonical JSON has no form for a ${typeof value}`);
  }
}

/** What an event's hash covers: every field a person reads, and its place in its chain. */
export type HashedEvent = Omit<AuditEvent, 'seq'> & { chain: string; n: number; prev: string };

const str = JSON.stringify;

/**
 * The canonical text an event's hash is taken over: RFC 8785 of the object
 * `{v:1, chain, n, prev, at, run, actor, job, command, action, phase, outcome, code, reason, payload}`.
 * The members are written here in their sorted order (the same bytes {@link canonicalJson} gives
 * for that object, faster: this runs once per event appended and per event verified).
 */
export function eventText(e: HashedEvent): string {
  return (
    `{"action":${str(e.action)},"actor":${str(e.actor)},"at":${str(e.at)},"chain":${str(e.chain)}` +
    `,"code":${str(e.code)},"command":${str(e.command)},"job":${str(e.job)},"n":${e.n}` +
    `,"outcome":${str(e.outcome)},"payload":${canonicalJson(e.payload)},"phase":${str(e.phase)}` +
    `,"prev":${str(e.prev)},"reason":${str(e.reason)},"run":${str(e.run)},"v":1}`
  );
}

/** An event's hash: SHA-256 over the UTF-8 bytes of {@link eventText}, lowercase hex. */
export function eventHash(e: HashedEvent): string {
  return createHash('sha256').update(eventText(e)).digest('hex');
}

/** A checkpoint before it is signed. */
export type CheckpointFields = Pick<AuditCheckpoint, 'chain' | 'n' | 'head' | 'at' | 'kind' | 'removed'>;

/**
 * The text a checkpoint's signature is over: RFC 8785 of
 * `{type:'loom-audit-checkpoint', v:1, chain, n, head, at, kind, removed}`.
 */
export function checkpointText(c: CheckpointFields): string {
  return canonicalJson({
    type: 'loom-audit-checkpoint',
    v: 1,
    chain: c.chain,
    n: c.n,
    head: c.head,
    at: c.at,
    kind: c.kind,
    removed: c.removed,
  });
}

/** A checkpoint of `signer`'s chain at position `n` with head `head`, signed now. */
export function signCheckpoint(
  signer: AuditSigner,
  fields: { n: number; head: string; kind: AuditCheckpointKind; removed?: number; at?: string },
): Omit<AuditCheckpoint, 'id'> {
  const c: CheckpointFields = {
    chain: signer.chain,
    n: fields.n,
    head: fields.head,
    at: fields.at ?? new Date().toISOString(),
    kind: fields.kind,
    removed: fields.removed ?? 0,
  };
  return { ...c, publicKey: signer.publicKey, signature: signer.sign(checkpointText(c)) };
}
