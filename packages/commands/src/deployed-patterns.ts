// Turning the deployed-pattern receipts a host reports into pattern tokens the model may hold:
// each checked against the configured Fabric session and its cell loaded first.
import { isRecord } from './json';
import { LIMITS } from './limits';
import type { PatternResolver } from './pattern';

interface DeployedReceipt {
  apiUrl: string;
  space: string;
  instanceId: string;
}

/**
 * The tokens for the receipts that name a whole Pattern Instance in the resolver's session, with
 * the canonical `pattern:<space>/<id>` link of each (host-side evidence, never shown). Anything
 * missing, foreign, malformed or unavailable contributes no token.
 */
export async function deployedPatternTokens(
  receipts: readonly unknown[],
  resolver: PatternResolver,
): Promise<{ tokens: { pattern_token: string }[]; links: string[] }> {
  const tokens: { pattern_token: string }[] = [];
  const links: string[] = [];
  for (const raw of receipts.slice(0, LIMITS.maxReceipts)) {
    const d = readDeployed(raw);
    if (!d || d.apiUrl !== resolver.session.apiUrl || d.space !== resolver.session.space) continue;
    let cell: Awaited<ReturnType<PatternResolver['load']>>;
    try {
      cell = await resolver.load(d);
    } catch {
      cell = undefined;
    }
    if (cell?.target !== 'pattern-instance') continue;
    const token = await resolver.handleFor({ space: d.space, instanceId: d.instanceId });
    if (token === undefined) continue;
    tokens.push({ pattern_token: token });
    links.push(`pattern:${d.space}/${d.instanceId}`);
  }
  return { tokens, links };
}

function readDeployed(v: unknown): DeployedReceipt | undefined {
  if (!isRecord(v) || v.type !== 'loom-deployed-pattern-v1') return undefined;
  if (typeof v.api_url !== 'string' || typeof v.space !== 'string' || typeof v.instance_id !== 'string')
    return undefined;
  return { apiUrl: v.api_url, space: v.space, instanceId: v.instance_id };
}
