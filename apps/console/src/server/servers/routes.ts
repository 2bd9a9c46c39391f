// Servers: the MCP server tool definitions held for a person's review, each with what changed
// against the accepted one, and the decision on one (docs/servers.md, "Review"; docs/console.md,
// "Servers"). Read from the instance's store alone (the broker records each definition it holds,
// with its text): the console starts no server and reads no workspace. A decision names the hash it
// was shown; the console accepts it only while that definition is still the one held and its text
// hashes to it (SV-19), signed with a passkey as an approval is once one is enrolled, and records it
// with `decideTool` (via `console`), its audit event committed with it.
import { heldFor, heldTools } from '@harness/host/internal';
import { toolDecisionChallenge } from '@harness/store';
import type {
  DecisionChallengeAnswer,
  HeldToolAnswer,
  ServerPinsAnswer,
  ServersAnswer,
  ToolDecisionAnswer,
} from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { ConsoleContext, RouteModule } from '../context';
import { apiError, hostErrorAnswer } from '../http';
import { checkSigned, type SignedSubject, signedChallenge } from '../passkeys/signed';

type Decision = 'accepted' | 'rejected';

interface DecisionBody {
  server: string;
  tool: string;
  hash: string;
  decision: Decision;
}

const BODY_SHAPE =
  'the body must be {"server": "<server id>", "tool": "<upstream name>", "hash": "<sha256 hex>", "decision": "accepted" | "rejected"}';

function decisionBody(body: unknown): DecisionBody | undefined {
  const b = body as Partial<Record<keyof DecisionBody, unknown>> | undefined;
  if (
    typeof b?.server !== 'string' ||
    typeof b.tool !== 'string' ||
    typeof b.hash !== 'string' ||
    !/^[0-9a-f]{64}$/.test(b.hash) ||
    (b.decision !== 'accepted' && b.decision !== 'rejected')
  ) {
    return undefined;
  }
  return { server: b.server, tool: b.tool, hash: b.hash, decision: b.decision };
}

/** What a decision on one definition binds: the server, the tool, the decision, the definition hash. */
function toolSubject(d: DecisionBody): SignedSubject {
  return {
    ceremony: { kind: 'tool-decision', server: d.server, tool: d.tool, decision: d.decision, hash: d.hash },
    challenge: (nonce) => toolDecisionChallenge(d.server, d.tool, d.decision, d.hash, nonce),
    bound: d.hash,
    what: `${d.decision} on ${d.server}'s tool ${d.tool} with sha256 ${d.hash}`,
  };
}

async function held(ctx: ConsoleContext) {
  const [pins, sightings] = await Promise.all([ctx.store.listToolPins(), ctx.store.listToolSightings()]);
  return { pins, held: heldTools(pins, sightings) };
}

/** The held definition a decision names, or the refusal to answer with (409: not the one held now). */
async function decidable(ctx: ConsoleContext, d: DecisionBody) {
  const found = heldFor((await held(ctx)).held, d.server, d.tool, d.hash);
  if (found.ok) return found;
  return { ok: false as const, status: 409 as const, message: found.message };
}

export const serversRoutes: RouteModule = (api, ctx) => {
  ctx.watch.probe('servers', async () => {
    const { pins, held: list } = await held(ctx);
    return [...pins.map((p) => `${p.server}\n${p.tool}\n${p.hash}`), '', ...list.map((h) => h.hash)].join(
      ',',
    );
  });

  api.get('/servers', async (c) => {
    const { pins, held: list } = await held(ctx);
    const servers = new Map<string, ServerPinsAnswer>();
    for (const p of pins) {
      const of = servers.get(p.server) ?? { server: p.server, tools: [] };
      servers.set(p.server, of);
      of.tools.push({
        tool: p.tool,
        hash: p.hash,
        acceptedAt: p.accepted_at,
        acceptedBy: p.accepted_by,
        via: p.via,
      });
    }
    return c.json({
      held: list.map(
        (h): HeldToolAnswer => ({
          server: h.server,
          id: h.id,
          upstream: h.upstream,
          hash: h.hash,
          change: h.change,
          firstSeen: h.firstSeen,
          lastSeen: h.lastSeen,
          accepted: h.accepted,
          diff: h.diff.map((l) => ({ ...l })),
          decidable: heldFor(list, h.server, h.upstream, h.hash).ok,
        }),
      ),
      servers: [...servers.values()],
    } satisfies ServersAnswer);
  });

  api.post('/servers/challenge', async (c) => {
    const d = decisionBody(await c.req.json().catch(() => undefined));
    if (d === undefined) return apiError(c, 400, ApiErrorCode.bad_request, BODY_SHAPE);
    const open = await decidable(ctx, d);
    if (!open.ok) return apiError(c, open.status, ApiErrorCode.conflict, open.message);
    const answer = await signedChallenge(ctx, c.get('session')?.id, toolSubject(d));
    return c.json(answer satisfies DecisionChallengeAnswer);
  });

  api.post('/servers/decision', async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { assertion?: unknown } | undefined;
    const d = decisionBody(body);
    if (d === undefined) return apiError(c, 400, ApiErrorCode.bad_request, BODY_SHAPE);
    // What was shown must still be what is held, before a signature is even looked at.
    const open = await decidable(ctx, d);
    if (!open.ok) return apiError(c, open.status, ApiErrorCode.conflict, open.message);
    const signed = await checkSigned(ctx, c.get('session')?.id, toolSubject(d), body?.assertion);
    if (!signed.ok) return apiError(c, signed.status, signed.code, signed.message);
    try {
      await ctx.store.decideTool({
        server: d.server,
        tool: d.tool,
        hash: d.hash,
        definition: open.tool.definition,
        decision: d.decision,
        by: ctx.person,
        via: 'console',
        ...(signed.assertion === undefined ? {} : { assertion: signed.assertion }),
      });
    } catch (error) {
      return hostErrorAnswer(c, error);
    }
    ctx.watch.publish({ topic: 'servers', value: `decided:${d.server}\n${d.tool}\n${d.hash}` });
    return c.json({
      decided: { ...d, by: ctx.person, via: 'console' },
    } satisfies ToolDecisionAnswer);
  });
};
