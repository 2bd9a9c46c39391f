// The catalog a run's host command tools work from: read afresh from the host, or the one held.
import { type Catalog, readCatalog } from './catalog';
import { failedToDeliver } from './failed-to-deliver';
import type { HostClient } from './host/types';
import type { RunState } from './run';
import type { ToolContext, ToolResult } from './tool';

/** Why the listing could not be read: a host-client code, or `malformed_payload`. */
export interface CatalogFailure {
  code: string;
}

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
): Promise<Catalog | CatalogFailure> {
  const held = run.catalog;
  const heldEtag = held === undefined ? undefined : etags.get(held);
  const listed = await client.list({ jobId: ctx.jobId, signal: ctx.signal, ifNoneMatch: heldEtag ?? '' });
  if (!listed.ok) return { code: listed.code };
  if ('unchanged' in listed) {
    if (held !== undefined && heldEtag === listed.etag) return held;
    return { code: 'malformed_payload' };
  }
  const read = readCatalog(listed.listing);
  if (!read.ok) return { code: read.code };
  if (listed.etag !== undefined) etags.set(read.catalog, listed.etag);
  run.catalog = read.catalog;
  return read.catalog;
}

/** The run's held catalog, read from the host the first time a tool needs it. */
export async function heldCatalog(
  run: RunState,
  client: HostClient,
  ctx: ToolContext,
): Promise<Catalog | CatalogFailure> {
  return run.catalog ?? freshCatalog(run, client, ctx);
}

/** The tool result for a listing that could not be read: nothing was sent. */
export function catalogFailure(run: RunState, code: string): ToolResult {
  if (code === 'cancelled')
    return failedToDeliver(run, 'cancelled', 'The turn was cancelled before the command listing was read.');
  return failedToDeliver(
    run,
    code,
    code === 'malformed_payload'
      ? 'The host answered the command listing with something that is not a listing; nothing was sent.'
      : 'The host command listing could not be read; nothing was sent. Try again later.',
  );
}
