// Pattern Instance tokens: resolving the handles a session holds, and the checks they must pass.
import type { CodeOf } from '@harness/errors';
import { PatternRefusalCode } from './outcome-codes';

/** A complete Fabric binding: the session Pattern Instance tokens are resolved in. */
export interface FabricSession {
  /** `--fabric-api-url` / `CF_HARNESS_FABRIC_API_URL`. */
  apiUrl: string;
  /** `--fabric-identity` / `CF_HARNESS_FABRIC_IDENTITY`. */
  identity: string;
  /** `--fabric-space` / `CF_HARNESS_FABRIC_SPACE`: the session's own space. */
  space: string;
}

/** A handle the session holds, as a resolver describes it. */
export interface PatternHandle {
  /** The opaque token the model holds and passes as `pattern_token`. */
  token: string;
  /** `general` address handles may be composed; restricted skill handles may not. */
  kind: 'general' | 'restricted-skill';
  apiUrl: string;
  space: string;
  /** The handle's scope; only `space` passes. */
  scope: string;
  /** A path inside the cell; only the whole instance (empty path) passes. */
  path: readonly string[];
  /** What the handle addresses: only a whole Pattern Instance passes. */
  target: 'pattern-instance' | 'cell';
  instanceId: string;
}

/**
 * Resolves Pattern Instance tokens for the Loom authoring tools, bound to one Fabric session. The
 * harness applies its own checks around it ({@link checkPatternHandle}); a resolver only reports
 * what the session holds. No Fabric HTTP client ships yet: {@link createLocalPatternResolver}
 * serves patterns the local host knows.
 */
export interface PatternResolver {
  readonly session: FabricSession;
  /** The handle the session holds under `token`, or `undefined` when it holds none. */
  lookup(token: string): Promise<PatternHandle | undefined>;
  /** Loads a cell to verify its identity; `undefined` when it is unavailable. */
  load(ref: {
    apiUrl: string;
    space: string;
    instanceId: string;
  }): Promise<{ target: 'pattern-instance' | 'cell' } | undefined>;
  /** A general handle token for a whole instance in the session's space, reusing one already held. */
  handleFor(ref: { space: string; instanceId: string }): Promise<string | undefined>;
}

/** Why a pattern token was refused (before any host write). */
export type PatternRefusal = CodeOf<typeof PatternRefusalCode>;

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * The seed's checks on a held handle: a general address handle, to a whole Pattern Instance, in
 * the session's own space and API, of `space` scope. Returns the canonical `pattern:<space>/<id>`
 * reference, which is kept out of model-visible output.
 */
export function checkPatternHandle(
  handle: PatternHandle,
  session: FabricSession,
): { ok: true; ref: string } | { ok: false; code: PatternRefusal } {
  if (handle.kind !== 'general') return { ok: false, code: PatternRefusalCode.pattern_token_restricted };
  if (handle.path.length > 0) return { ok: false, code: PatternRefusalCode.pattern_token_subpath };
  if (handle.space !== session.space || handle.apiUrl !== session.apiUrl)
    return { ok: false, code: PatternRefusalCode.pattern_token_foreign_space };
  if (handle.scope !== 'space') return { ok: false, code: PatternRefusalCode.pattern_token_not_space_scope };
  if (handle.target !== 'pattern-instance')
    return { ok: false, code: PatternRefusalCode.pattern_token_not_instance };
  if (!SEGMENT.test(handle.space) || !SEGMENT.test(handle.instanceId))
    return { ok: false, code: PatternRefusalCode.pattern_token_not_instance };
  return { ok: true, ref: `pattern:${handle.space}/${handle.instanceId}` };
}

/** Resolves a token through a resolver and checks it; nothing here writes to the host. */
export async function resolvePatternToken(
  resolver: PatternResolver | undefined,
  token: string,
): Promise<{ ok: true; ref: string } | { ok: false; code: PatternRefusal }> {
  if (!resolver) return { ok: false, code: PatternRefusalCode.pattern_resolver_missing };
  const handle = await resolver.lookup(token);
  if (!handle || handle.token !== token) return { ok: false, code: PatternRefusalCode.pattern_token_unknown };
  return checkPatternHandle(handle, resolver.session);
}

/**
 * Reads a Fabric binding from flags or their environment defaults. All three or none: a partial
 * binding is refused so a service never starts half bound.
 */
export function readFabricBinding(
  flags: { apiUrl?: string | undefined; identity?: string | undefined; space?: string | undefined },
  env: Record<string, string | undefined> = {},
): { ok: true; value: FabricSession | undefined } | { ok: false; missing: string[] } {
  const apiUrl = flags.apiUrl ?? env.CF_HARNESS_FABRIC_API_URL;
  const identity = flags.identity ?? env.CF_HARNESS_FABRIC_IDENTITY;
  const space = flags.space ?? env.CF_HARNESS_FABRIC_SPACE;
  const given = [apiUrl, identity, space].filter((v) => v !== undefined && v !== '');
  if (given.length === 0) return { ok: true, value: undefined };
  const missing: string[] = [];
  if (!apiUrl) missing.push('--fabric-api-url');
  if (!identity) missing.push('--fabric-identity');
  if (!space) missing.push('--fabric-space');
  if (missing.length > 0) return { ok: false, missing };
  return {
    ok: true,
    value: { apiUrl: apiUrl as string, identity: identity as string, space: space as string },
  };
}

/** Options of {@link createLocalPatternResolver}. */
export interface LocalPatternResolverOptions {
  session: FabricSession;
  /** The instances and cells the local host knows, in the session's space. */
  cells?: readonly {
    instanceId: string;
    target: 'pattern-instance' | 'cell';
    apiUrl?: string;
    space?: string;
  }[];
  /** Handles the session already holds. */
  handles?: readonly PatternHandle[];
}

/**
 * A resolver for patterns the local host knows: an in-memory table of held handles and known
 * cells. `handleFor` reuses a held general handle before minting a new opaque one.
 */
export function createLocalPatternResolver(
  options: LocalPatternResolverOptions,
): PatternResolver & { held(): PatternHandle[] } {
  const handles = new Map<string, PatternHandle>();
  for (const h of options.handles ?? []) handles.set(h.token, h);
  const cells = options.cells ?? [];
  let minted = 0;
  const session = options.session;
  return {
    session,
    async lookup(token) {
      return handles.get(token);
    },
    async load(ref) {
      const cell = cells.find(
        (c) =>
          c.instanceId === ref.instanceId &&
          (c.space ?? session.space) === ref.space &&
          (c.apiUrl ?? session.apiUrl) === ref.apiUrl,
      );
      return cell ? { target: cell.target } : undefined;
    },
    async handleFor(ref) {
      if (ref.space !== session.space) return undefined;
      for (const h of handles.values()) {
        if (
          h.kind === 'general' &&
          h.space === ref.space &&
          h.instanceId === ref.instanceId &&
          h.path.length === 0 &&
          h.scope === 'space'
        ) {
          return h.token;
        }
      }
      const token = `ptok-${++minted}-${Math.random().toString(36).slice(2, 10)}`;
      handles.set(token, {
        token,
        kind: 'general',
        apiUrl: session.apiUrl,
        space: ref.space,
        scope: 'space',
        path: [],
        target: 'pattern-instance',
        instanceId: ref.instanceId,
      });
      return token;
    },
    held: () => [...handles.values()],
  };
}
