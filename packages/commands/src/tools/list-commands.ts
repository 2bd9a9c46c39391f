// list_commands: what this run may call, read afresh from the host on every call (seed 000 "list_commands").
import { failedToDeliver, notConfigured, policyRefusal } from '../failed-to-deliver';
import type { HostClient } from '../host/types';
import { isRecord, isStringArray } from '../json';
import { LIMITS } from '../limits';
import { listNotice, renderListing } from '../listing';
import type { ListCommandsOutcome, NotDeliveredOutcome } from '../outcome';
import { DeliveryCode } from '../outcome-codes';
import type { RunState } from '../run';
import { catalogFailure, freshCatalog } from '../run-catalog';
import { cutId } from '../shape';
import type { HarnessTool, JsonSchema, ToolContext } from '../tool';
import { guardInput } from '../tool-input';

const inputSchema: JsonSchema = {
  type: 'object',
  properties: {
    detail: {
      type: 'array',
      items: { type: 'string' },
      description: `Up to ${LIMITS.maxDetail} command names whose full argument schema (inputSchema) to include.`,
    },
  },
};

/**
 * The `list_commands` tool. `client` is `undefined` for a tool kept without a configuration;
 * `listBound` is the byte bound past which entries lose their description; `notices` gives the
 * sentences the notice adds at each listing.
 */
export function listCommandsTool(
  client: HostClient | undefined,
  listBound: number,
  notices: () => readonly string[] = () => [],
): HarnessTool {
  return {
    name: 'list_commands',
    description:
      'List the host commands this run may call, each as a one-line typed signature: name(params) -> {outputs}  [effect, target]. Pass detail (up to 16 names) to get their full argument schemas.',
    inputSchema,
    effect: 'read',
    annotations: {
      title: 'List host commands',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    execute: guardInput((input, ctx) => listCommands(input, ctx, client, listBound, notices)),
  };
}

async function listCommands(
  input: unknown,
  ctx: ToolContext,
  client: HostClient | undefined,
  listBound: number,
  notices: () => readonly string[],
): Promise<ListCommandsOutcome> {
  const run = ctx.run;
  const refused = policyRefusal(run, 'list_commands', ctx, 'read');
  if (refused) return refused;
  if (!client) return notConfigured(run);
  const detail = readDetail(run, input);
  if (!detail.ok) return detail.refused;
  if (ctx.signal?.aborted)
    return failedToDeliver(run, DeliveryCode.cancelled, 'The turn was cancelled; nothing was read.');
  const read = await freshCatalog(run, client, ctx);
  if (!read.ok) return catalogFailure(run, read.code);
  return renderListing(run, read.catalog, detail.names, listBound, listNotice(notices()));
}

/** The names the model asked to see in detail, or the `invalid_input` result for a bad input. */
function readDetail(
  run: RunState,
  input: unknown,
): { ok: true; names: string[] } | { ok: false; refused: NotDeliveredOutcome } {
  const refuse = (message: string) =>
    ({ ok: false, refused: failedToDeliver(run, DeliveryCode.invalid_input, message) }) as const;
  const raw = input ?? {};
  if (!isRecord(raw)) return refuse('list_commands takes an object: { detail?: string[] }.');
  const extra = Object.keys(raw).filter((k) => k !== 'detail');
  if (extra.length > 0)
    return refuse(`list_commands takes only "detail" (found "${cutId(extra[0] ?? '')}").`);
  const detail = raw.detail ?? [];
  if (!isStringArray(detail)) return refuse('detail must be a list of command names.');
  if (detail.length > LIMITS.maxDetail)
    return refuse(
      `detail names at most ${LIMITS.maxDetail} commands (found ${detail.length}); ask in several calls.`,
    );
  return { ok: true, names: detail };
}
