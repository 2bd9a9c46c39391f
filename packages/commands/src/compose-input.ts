// Reading the model's loom_compose input: the request id, the target loom and its guard, and the
// components, each exactly one reference or one pattern token (seed 001).
import { isLoomId, REF_KINDS } from '@harness/protocol';
import { isRecord } from './json';
import { LIMITS } from './limits';
import { cutId } from './shape';

/** The prefixes a component `ref` may start with: the protocol's reference kinds (seed 001). */
export const REF_PREFIXES: readonly string[] = REF_KINDS.map((kind) => `${kind}:`);

/** A checked loom_compose input; components still hold unresolved `pattern_token`s. */
export interface ComposeInput {
  requestId: string;
  loomId?: string;
  expectedVersion?: number;
  components: Record<string, unknown>[];
}

const COMPONENT_KEYS = new Set(['ref', 'pattern_token', 'title', 'stage', 'focus']);
const COMPOSE_KEYS = new Set(['request_id', 'loom_id', 'expected_version', 'components']);

/** Checks a loom_compose input; the message says what to fix. */
export function readComposeInput(
  input: unknown,
): { ok: true; value: ComposeInput } | { ok: false; message: string } {
  if (!isRecord(input))
    return {
      ok: false,
      message: 'loom_compose takes { request_id, loom_id?, expected_version?, components }.',
    };
  for (const k of Object.keys(input))
    if (!COMPOSE_KEYS.has(k)) return { ok: false, message: `Unknown field "${cutId(k, 64)}".` };
  const { request_id, loom_id, expected_version, components } = input;
  if (!isLoomId(request_id)) {
    return {
      ok: false,
      message:
        'request_id is required: one key (letters, digits, _.:-) for one logical composition, kept on retry.',
    };
  }
  if (loom_id !== undefined && !isLoomId(loom_id))
    return { ok: false, message: 'loom_id must be a loom id.' };
  if (expected_version !== undefined) {
    if (loom_id === undefined)
      return { ok: false, message: 'expected_version guards an existing loom: give loom_id with it.' };
    if (
      typeof expected_version !== 'number' ||
      !Number.isSafeInteger(expected_version) ||
      expected_version < 1
    ) {
      return { ok: false, message: 'expected_version must be a positive integer.' };
    }
  }
  if (!Array.isArray(components) || components.length < 1 || components.length > LIMITS.maxComponents) {
    return { ok: false, message: `components must hold 1 to ${LIMITS.maxComponents} components.` };
  }
  for (const [i, c] of components.entries()) {
    const problem = componentProblem(c, i);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  const value: ComposeInput = { requestId: request_id, components: components as Record<string, unknown>[] };
  if (typeof loom_id === 'string') value.loomId = loom_id;
  if (typeof expected_version === 'number') value.expectedVersion = expected_version;
  return { ok: true, value };
}

/** What is wrong with component `i`, or `undefined`. */
function componentProblem(c: unknown, i: number): string | undefined {
  if (!isRecord(c)) return `components[${i}] must be an object.`;
  for (const k of Object.keys(c))
    if (!COMPONENT_KEYS.has(k)) return `components[${i}] has an unknown field "${cutId(k, 64)}".`;
  const hasRef = c.ref !== undefined;
  const hasToken = c.pattern_token !== undefined;
  if (hasRef === hasToken) return `components[${i}] needs exactly one of ref and pattern_token.`;
  if (
    hasRef &&
    (typeof c.ref !== 'string' ||
      !REF_PREFIXES.some((p) => (c.ref as string).startsWith(p)) ||
      c.ref.length > 2048)
  ) {
    return `components[${i}].ref must start with one of ${REF_PREFIXES.join(' ')}; a pattern is named by pattern_token.`;
  }
  if (
    hasToken &&
    (typeof c.pattern_token !== 'string' || c.pattern_token.length === 0 || c.pattern_token.length > 512)
  ) {
    return `components[${i}].pattern_token must be a held token.`;
  }
  if (c.title !== undefined && (typeof c.title !== 'string' || c.title.length === 0 || c.title.length > 200))
    return `components[${i}].title must be 1-200 characters.`;
  if (c.stage !== undefined && typeof c.stage !== 'string')
    return `components[${i}].stage must be a stage name.`;
  if (c.focus !== undefined && typeof c.focus !== 'boolean')
    return `components[${i}].focus must be true or false.`;
  return undefined;
}
