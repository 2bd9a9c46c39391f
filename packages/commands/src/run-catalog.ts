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

/** Reads the host listing afresh and holds it; a failed read holds nothing and keeps what was held. */
export async function freshCatalog(
  run: RunState,
  client: HostClient,
  ctx: ToolContext,
): Promise<Catalog | CatalogFailure> {
  const listed = await client.list({ jobId: ctx.jobId, signal: ctx.signal });
  if (!listed.ok) return { code: listed.code };
  const read = readCatalog(listed.listing);
  if (!read.ok) return { code: read.code };
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
