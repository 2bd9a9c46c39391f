// The catalog a run's host command tools work from: read afresh from the host, or the one held.
import { type Catalog, readCatalog } from './catalog';
import { failedToDeliver } from './failed-to-deliver';
import type { HostClient, ListOutcome } from './host/types';
import type { NotDeliveredOutcome } from './outcome';
import { DeliveryCode } from './outcome-codes';
import type { RunState } from './run';
import type { ToolContext } from './tool';

/** Why the listing could not be read: a host-client code, or `malformed_payload`. */
export type CatalogFailureCode =
  | Extract<ListOutcome, { ok: false }>['code']
  | typeof DeliveryCode.malformed_payload;

/** The run's catalog, or why it could not be read. */
export type CatalogRead = { ok: true; catalog: Catalog } | { ok: false; code: CatalogFailureCode };

// The host's etag of the listing each held catalog was read from.
const etags = new WeakMap<Catalog, string>();

/**
 * Reads the host listing afresh and holds it; a failed read holds nothing and keeps what was held.
 * The host is asked every time (grants are judged as they are now); when it answers that the
 * listing is the one the run holds (same etag), the held catalog is used as it is, not read again.
 */
export async function freshCatalog(
  run: RunState,
  client: HostClient,
  ctx: ToolContext,
): Promise<CatalogRead> {
  const held = run.catalog;
  const heldEtag = held === undefined ? undefined : etags.get(held);
  const listed = await client.list({ jobId: ctx.jobId, signal: ctx.signal, ifNoneMatch: heldEtag ?? '' });
  if (!listed.ok) return { ok: false, code: listed.code };
  if ('unchanged' in listed) {
    if (held !== undefined && heldEtag === listed.etag) return { ok: true, catalog: held };
    return { ok: false, code: DeliveryCode.malformed_payload };
  }
  const read = readCatalog(listed.listing);
  if (!read.ok) return { ok: false, code: read.code };
  if (listed.etag !== undefined) etags.set(read.catalog, listed.etag);
  run.catalog = read.catalog;
  return { ok: true, catalog: read.catalog };
}

/** The run's held catalog, read from the host the first time a tool needs it. */
export async function heldCatalog(run: RunState, client: HostClient, ctx: ToolContext): Promise<CatalogRead> {
  return run.catalog === undefined ? freshCatalog(run, client, ctx) : { ok: true, catalog: run.catalog };
}

/** The tool result for a listing that could not be read: nothing was sent. */
export function catalogFailure(run: RunState, code: CatalogFailureCode): NotDeliveredOutcome {
  if (code === DeliveryCode.cancelled)
    return failedToDeliver(run, code, 'The turn was cancelled before the command listing was read.');
  return failedToDeliver(
    run,
    code,
    code === DeliveryCode.malformed_payload
      ? 'The host answered the command listing with something that is not a listing; nothing was sent.'
      : 'The host command listing could not be read; nothing was sent. Try again later.',
  );
}
