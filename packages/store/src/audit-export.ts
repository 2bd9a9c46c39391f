// Verifying a store, and the self-verifying export (docs/audit.md, "Export"): a JSONL file of a
// header, every checkpoint, every event in `seq` order, and a trailer signing the digest of all the
// lines before it, so a copy kept elsewhere is checked with nothing but the file (and the key to pin).
import { createHash } from 'node:crypto';
import { canonicalJson } from './audit-chain';
import { chainOf, verifySignature } from './audit-key';
import { type AuditVerification, AuditVerifier } from './audit-verify';
import { StoreError, StoreErrorCode } from './errors';
import {
  AUDIT_PAGE_MAX,
  type AuditCheckpoint,
  type AuditSigner,
  type ChainedAuditEvent,
  type Store,
} from './types';

/** The format an export's header names. */
export const AUDIT_EXPORT_FORMAT = 'loom-audit-export/1';

/** The text an export's trailer signature is over: RFC 8785 of `{type, lines, digest}`. */
function trailerText(lines: number, digest: string): string {
  return canonicalJson({ type: 'loom-audit-export-trailer', v: 1, lines, digest });
}

/**
 * The lines of a byte stream (a file's read stream), without their `\n`: what
 * {@link verifyAuditExport} reads. Splits buffers itself, several times faster than node:readline
 * on a file of a million lines.
 */
export async function* auditExportLines(input: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of input) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const data = rest.length === 0 ? buf : Buffer.concat([rest, buf]);
    let start = 0;
    for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
      yield data.toString('utf8', start, nl);
      start = nl + 1;
    }
    rest = data.subarray(start);
  }
  if (rest.length > 0) yield rest.toString('utf8');
}

/** Reads a store's checkpoints, then its events page by page, into a verifier. */
export async function verifyAuditStore(
  store: Pick<Store, 'auditCheckpoints' | 'readAuditChain'>,
  options: { publicKeys?: readonly string[] } = {},
): Promise<AuditVerification> {
  const verifier = new AuditVerifier(await store.auditCheckpoints(), options.publicKeys ?? []);
  let after = 0;
  while (verifier.ok) {
    const page = await store.readAuditChain(after, AUDIT_PAGE_MAX);
    for (const e of page) if (!verifier.event(e)) break;
    const last = page.at(-1);
    if (last === undefined) break;
    after = last.seq;
  }
  return verifier.finish();
}

/**
 * Writes the export of a store: first a fresh `export` checkpoint of the signer's chain, then the
 * lines, each ending in `\n`, through `write`. Events appended while it runs are left out (it stops
 * at the newest event when it began). Returns how many events and checkpoints it wrote, and the
 * last event's `seq` and hash (what `loom audit export --to` names the file by).
 */
export async function exportAudit(
  store: Pick<Store, 'auditCheckpoints' | 'readAuditChain' | 'checkpointAudit' | 'tailAudit'>,
  signer: AuditSigner,
  write: (text: string) => void | Promise<void>,
): Promise<{ events: number; checkpoints: number; last: { seq: number; hash: string | null } | null }> {
  await store.checkpointAudit('export');
  const end = (await store.tailAudit(1))[0]?.seq ?? 0;
  const checkpoints = await store.auditCheckpoints();
  const digest = createHash('sha256');
  let lines = 0;
  const line = async (value: unknown): Promise<void> => {
    const text = `${JSON.stringify(value)}\n`;
    digest.update(text);
    lines++;
    await write(text);
  };
  await line({
    type: 'header',
    format: AUDIT_EXPORT_FORMAT,
    exportedAt: new Date().toISOString(),
    chain: signer.chain,
    publicKey: signer.publicKey,
  });
  for (const c of checkpoints) await line({ type: 'checkpoint', ...c });
  let after = 0;
  let events = 0;
  let lastEvent: ChainedAuditEvent | undefined;
  for (;;) {
    const page = await store.readAuditChain(after, AUDIT_PAGE_MAX);
    const kept = page.filter((e) => e.seq <= end);
    for (const e of kept) await line({ type: 'event', ...e });
    events += kept.length;
    lastEvent = kept.at(-1) ?? lastEvent;
    const last = page.at(-1);
    if (last === undefined || last.seq >= end) break;
    after = last.seq;
  }
  const hex = digest.digest('hex');
  await write(
    `${JSON.stringify({ type: 'trailer', lines, digest: hex, publicKey: signer.publicKey, signature: signer.sign(trailerText(lines, hex)) })}\n`,
  );
  return {
    events,
    checkpoints: checkpoints.length,
    last: lastEvent === undefined ? null : { seq: lastEvent.seq, hash: lastEvent.hash },
  };
}

type ExportLine =
  | { type: 'header'; format: string; publicKey: string }
  | ({ type: 'checkpoint' } & AuditCheckpoint)
  | ({ type: 'event' } & ChainedAuditEvent)
  | { type: 'trailer'; lines: number; digest: string; publicKey: string; signature: string };

/**
 * Verifies an export from its lines (without their `\n`): the chains as a store's, and the trailer
 * (present, last, the digest of every line before it, signed by the header's key, and that key
 * pinned when keys are given). A file that is not an export is an `audit_export` StoreError.
 */
export async function verifyAuditExport(
  lines: AsyncIterable<string> | Iterable<string>,
  options: { publicKeys?: readonly string[] } = {},
): Promise<AuditVerification & { signedBy: string | null }> {
  const digest = createHash('sha256');
  const checkpoints: AuditCheckpoint[] = [];
  let verifier: AuditVerifier | undefined;
  let header: { publicKey: string } | undefined;
  let count = 0;
  let trailer: Extract<ExportLine, { type: 'trailer' }> | undefined;
  let after: number | undefined;
  const pinned = options.publicKeys ?? [];
  const start = (): AuditVerifier => {
    verifier ??= new AuditVerifier(checkpoints, pinned);
    return verifier;
  };
  for await (const text of lines) {
    if (trailer !== undefined) {
      after ??= count + 1;
      count++;
      continue;
    }
    let value: ExportLine;
    try {
      value = JSON.parse(text) as ExportLine;
    } catch (cause) {
      if (count === 0) throw notExport(`its first line is not JSON`, cause);
      start().report({
        kind: 'export',
        chain: null,
        seq: null,
        message: `line ${count + 1} of the export is not JSON: the file was changed`,
      });
      break;
    }
    if (count === 0) {
      if (value.type !== 'header' || value.format !== AUDIT_EXPORT_FORMAT) {
        throw notExport(`its first line is not a ${AUDIT_EXPORT_FORMAT} header`);
      }
      header = value;
    } else if (value.type === 'checkpoint' && verifier === undefined) {
      const { type: _, ...c } = value;
      checkpoints.push(c);
    } else if (value.type === 'event') {
      // Read as it is: the verifier reads the fields it hashes and ignores `type`.
      if (!start().event(value)) break;
    } else if (value.type === 'trailer') {
      trailer = value;
      continue;
    } else {
      start().report({
        kind: 'export',
        chain: null,
        seq: null,
        message: `line ${count + 1} of the export is a ${String((value as { type?: unknown }).type)} line where none belongs: the file was changed`,
      });
      break;
    }
    digest.update(text);
    digest.update('\n');
    count++;
  }
  const v = start();
  if (header === undefined) throw notExport('it is empty');
  if (v.ok) {
    const problem = trailerProblem(trailer, header, count, digest.digest('hex'), after, pinned);
    if (problem !== undefined) v.report({ kind: 'export', chain: null, seq: null, message: problem });
  }
  return { ...v.finish(), signedBy: trailer?.publicKey ?? null };
}

function trailerProblem(
  trailer: Extract<ExportLine, { type: 'trailer' }> | undefined,
  header: { publicKey: string },
  count: number,
  digest: string,
  after: number | undefined,
  pinned: readonly string[],
): string | undefined {
  if (trailer === undefined)
    return `the export ends after line ${count} without its signed trailer: it was cut`;
  if (after !== undefined) return `the export goes on after its trailer (line ${after}): lines were added`;
  if (trailer.lines !== count || trailer.digest !== digest) {
    return `the export's lines are not the ones its trailer signed (${trailer.lines} lines, digest ${trailer.digest.slice(0, 12)}…): the file was changed`;
  }
  if (
    trailer.publicKey !== header.publicKey ||
    !verifySignature(trailer.publicKey, trailerText(count, digest), trailer.signature)
  ) {
    return `the export's trailer signature does not verify with its key ${header.publicKey}: the file was changed`;
  }
  if (pinned.length > 0 && !pinned.includes(trailer.publicKey)) {
    return `the export is signed by ${trailer.publicKey} (chain ${chainOf(trailer.publicKey)}), not by a key you named with --public-key`;
  }
  return undefined;
}

function notExport(why: string, cause?: unknown): StoreError {
  return new StoreError(
    StoreErrorCode.audit_export,
    `this file is not an audit export (${why}); make one with \`loom audit export --format jsonl\``,
    cause === undefined ? {} : { cause },
  );
}
