// The Loom built-in commands (seed 001): loom.compose, loom.inspect, loom.authoring-context.

import {
  type CommandAnswer,
  LOOM_ID_PATTERN,
  MAX_COMPOSE_COMPONENTS,
  MAX_CONTEXT_RECEIPTS,
  type ManifestRow,
  REF_KINDS,
} from '@harness/protocol';
import {
  type AuditEventInput,
  type ComponentInput,
  type ComposeOutcome,
  STAGE_CAPACITY,
  type Store,
} from '@harness/store';
import { canonicalJson, sha256 } from './canonical';
import {
  composeAnswer,
  contextAnswer,
  failedAnswer,
  inspectedAnswer,
  notFoundAnswer,
} from './command/answers';

/** Ids of the built-in commands. */
export const BUILTIN_IDS = ['loom.compose', 'loom.inspect', 'loom.authoring-context'] as const;

/** One built-in command id. */
export type BuiltinId = (typeof BUILTIN_IDS)[number];

const loomIdSchema = { type: 'string', pattern: LOOM_ID_PATTERN, description: 'A loom id (loom-…).' };

const composeInputs = {
  type: 'object',
  additionalProperties: false,
  required: ['request_id', 'components'],
  properties: {
    request_id: {
      type: 'string',
      pattern: LOOM_ID_PATTERN,
      description:
        'One key for one logical composition; retry with the same key and the same arguments to recover its receipt.',
    },
    loom_id: { ...loomIdSchema, description: 'Extend this loom; leave out to create a new one.' },
    expected_version: {
      type: 'integer',
      minimum: 1,
      description: 'Refuse (version_conflict) unless the loom is at this version. Needs loom_id.',
    },
    components: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_COMPOSE_COMPONENTS,
      items: {
        type: 'object',
        additionalProperties: false,
        oneOf: [{ required: ['ref'] }, { required: ['pattern_ref'] }],
        properties: {
          ref: {
            type: 'string',
            maxLength: 2048,
            // No NUL anywhere (no store's text holds one; PostgreSQL's cannot); otherwise `.`.
            pattern: `^(${REF_KINDS.join('|')}):[^\\s\\u0000][^\\u0000\\n\\r\\u2028\\u2029]*$`,
            description: `A reference: ${REF_KINDS.map((k) => `${k}:`).join(', ')}.`,
          },
          pattern_ref: {
            type: 'string',
            maxLength: 300,
            pattern: '^pattern:[A-Za-z0-9][A-Za-z0-9_.-]{0,127}/[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$',
            description:
              'A canonical pattern reference, pattern:<space>/<instance-id> (the harness resolves tokens).',
          },
          title: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' },
          stage: {
            type: 'string',
            pattern: '^[a-z][a-z0-9_-]{0,31}$',
            description: `Place on this stage (at most ${STAGE_CAPACITY} components; the longest placed moves to the shelf).`,
          },
          focus: {
            type: 'boolean',
            description: 'Give this component the loom’s focus (at most one per call).',
          },
        },
      },
    },
  },
  dependencies: { expected_version: ['loom_id'] },
} as const;

/** The manifest rows of the built-ins, before any broker stamp. */
export const BUILTIN_ROWS: Record<BuiltinId, ManifestRow> = {
  'loom.compose': {
    id: 'loom.compose',
    title: 'Create or extend a loom from components.',
    help: 'Creates a loom (no loom_id) or extends one (loom_id, optionally guarded by expected_version) with 1–100 components, each one reference with an optional title, stage and focus. Commits atomically and returns a receipt; an identical retry with the same request_id returns the original receipt with replayed: true.',
    inputs: composeInputs,
    outputs: ['receipt', 'replayed', 'current_version', 'displaced'],
    effect: 'write',
    scope: 'global',
  },
  'loom.inspect': {
    id: 'loom.inspect',
    title: 'Read one loom: version, components and layout.',
    help: 'Returns the current version, the components’ metadata (kind, title, stage, position) and the layout (stages, shelf, focus) of one loom. Grants no handles: component references are not returned.',
    inputs: {
      type: 'object',
      additionalProperties: false,
      required: ['loom_id'],
      properties: { loom_id: { ...loomIdSchema, 'x-source': 'loom' } },
    },
    outputs: ['loom_id', 'version', 'components', 'layout'],
    effect: 'read',
    scope: 'loom',
  },
  'loom.authoring-context': {
    id: 'loom.authoring-context',
    title: 'Recover this run’s compose receipts and the bound loom.',
    help: `Returns at most ${MAX_CONTEXT_RECEIPTS} historical compose receipts of this run's agent, newest first, plus the bound target loom. History never selects a write target and is not work done by this call.`,
    inputs: {
      type: 'object',
      additionalProperties: false,
      properties: { loom_id: { ...loomIdSchema, 'x-source': 'loom' } },
    },
    outputs: ['receipts', 'target', 'target_unavailable'],
    effect: 'read',
    scope: 'global',
  },
};

/** Who is calling a built-in: the attribution the broker (or direct transport) stamped. */
export interface BuiltinContext {
  actor: string;
  run: string;
  /** The receipt namespace: idempotency keys and history are scoped to it. */
  namespace: string;
  /**
   * The audit event of a compose's answer; when given, the store commits it in the compose's own
   * transaction (see `ComposeInput.audit`), so the caller records no second event.
   */
  composeAudit?: (answer: CommandAnswer) => AuditEventInput;
}

/** A built-in call's arguments after schema validation, plus where `loom_id` came from. */
export interface BuiltinCall {
  command: BuiltinId;
  args: Record<string, unknown>;
  /** True when `loom_id` was filled from `--loom` (an implicit origin), not named in the arguments. */
  loomIdImplicit: boolean;
}

/** Checks the compose rules a JSON Schema cannot say; returns `{path, message}` issues. */
export function composeSemanticErrors(args: Record<string, unknown>): { path: string; message: string }[] {
  const errors: { path: string; message: string }[] = [];
  const components = args.components as { stage?: string; focus?: boolean }[];
  const perStage = new Map<string, number>();
  let focus = 0;
  components.forEach((c, i) => {
    if (c.focus === true) {
      focus++;
      if (focus > 1)
        errors.push({
          path: `/components/${i}/focus`,
          message: 'at most one component per call may take focus',
        });
    }
    if (c.stage !== undefined) {
      const n = (perStage.get(c.stage) ?? 0) + 1;
      perStage.set(c.stage, n);
      if (n === STAGE_CAPACITY + 1) {
        errors.push({
          path: `/components/${i}/stage`,
          message: `stage "${c.stage}" holds at most ${STAGE_CAPACITY} components; this call places more`,
        });
      }
    }
  });
  return errors;
}

/** Runs one validated built-in call against the store. */
export async function runBuiltin(
  store: Store,
  call: BuiltinCall,
  ctx: BuiltinContext,
): Promise<CommandAnswer> {
  const { command, args } = call;
  switch (command) {
    case 'loom.compose': {
      const components: ComponentInput[] = (args.components as Record<string, unknown>[]).map((c) => ({
        ref: (c.ref ?? c.pattern_ref) as string,
        ...(typeof c.title === 'string' ? { title: c.title } : {}),
        ...(typeof c.stage === 'string' ? { stage: c.stage } : {}),
        ...(c.focus === true ? { focus: true } : {}),
      }));
      const { request_id: requestId, ...logical } = args;
      const outcome = await store.compose({
        namespace: ctx.namespace,
        actor: ctx.actor,
        run: ctx.run,
        requestId: requestId as string,
        ...(typeof args.loom_id === 'string' ? { loomId: args.loom_id } : {}),
        ...(typeof args.expected_version === 'number' ? { expectedVersion: args.expected_version } : {}),
        components,
        argsHash: sha256(canonicalJson(logical)),
        ...(ctx.composeAudit
          ? { audit: (o: ComposeOutcome) => ctx.composeAudit!(composeAnswer(command, o)) }
          : {}),
      });
      return composeAnswer(command, outcome);
    }
    case 'loom.inspect': {
      const loomId = args.loom_id as string;
      const view = await store.inspect(loomId);
      return view ? inspectedAnswer(command, view) : notFoundAnswer(command, loomId);
    }
    case 'loom.authoring-context': {
      const receipts = await store.receipts(ctx.namespace, MAX_CONTEXT_RECEIPTS);
      const loomId = args.loom_id as string | undefined;
      if (loomId === undefined) return contextAnswer(command, { receipts, target: null });
      const view = await store.inspect(loomId);
      if (view) return contextAnswer(command, { receipts, target: view });
      if (!call.loomIdImplicit) return notFoundAnswer(command, loomId);
      return contextAnswer(command, {
        receipts,
        target: null,
        target_unavailable: { loom_id: loomId, reason: 'not_found' },
      });
    }
  }
  return failedAnswer(command, 'unhandled built-in', false);
}
