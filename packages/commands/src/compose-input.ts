// The model's loom_compose input: the request id, the target loom and its guard, and the
// components, each exactly one reference or one pattern token (seed 001), read once against the
// zod schema below.
import { LOOM_ID_PATTERN, REF_KINDS } from '@harness/protocol';
import { z } from 'zod';
import { isRecord } from './json';
import { LIMITS } from './limits';
import { cutId } from './shape';
import { ahead, readInput } from './tool-input';

/** The prefixes a component `ref` may start with: the protocol's reference kinds (seed 001). */
export const REF_PREFIXES: readonly string[] = REF_KINDS.map((kind) => `${kind}:`);

const LOOM_ID = new RegExp(LOOM_ID_PATTERN);

/** A loom id as a model writes it (the protocol's pattern); `error` is what the model is told of anything else. */
export function loomIdText(error: string): z.ZodString {
  return z.string({ error }).regex(LOOM_ID);
}
const COMPONENTS = `components must hold 1 to ${LIMITS.maxComponents} components.`;
const REF = `.ref must start with one of ${REF_PREFIXES.join(' ')}; a pattern is named by pattern_token.`;

/**
 * One component: exactly one reference or one pattern token, and how it shows. Its messages follow
 * the component's name (`components[2] must be an object.`): {@link readComposeInput} puts it first.
 */
const ComponentInput = z
  .strictObject(
    {
      ref: z
        .string({ error: REF })
        .max(2048)
        .refine((ref) => REF_PREFIXES.some((p) => ref.startsWith(p)), REF)
        .describe(`A reference starting ${REF_PREFIXES.join(' ')}`)
        .optional(),
      pattern_token: z
        .string({ error: '.pattern_token must be a held token.' })
        .min(1)
        .max(512)
        .describe('A Pattern Instance token you hold.')
        .optional(),
      title: z.string({ error: '.title must be 1-200 characters.' }).min(1).max(200).optional(),
      stage: z.string({ error: '.stage must be a stage name.' }).optional(),
      focus: z.boolean({ error: '.focus must be true or false.' }).optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? ` has an unknown field "${cutId(issue.keys[0] ?? '', 64)}".`
          : ' must be an object.',
    },
  )
  .check(
    z.refine((c) => (c.ref !== undefined) !== (c.pattern_token !== undefined), {
      message: ' needs exactly one of ref and pattern_token.',
      params: ahead,
      // Checked before the fields are, as it always was: whatever else is wrong with them.
      when: (payload) => isRecord(payload.value),
    }),
  );

/** A loom_compose input as a model writes it, and as its JSON Schema lists it. */
export const ComposeInput = z
  .strictObject(
    {
      request_id: loomIdText(
        'request_id is required: one key (letters, digits, _.:-) for one logical composition, kept on retry.',
      ).describe(
        'One key for one logical composition. On retry keep the same key and the exact same arguments.',
      ),
      loom_id: loomIdText('loom_id must be a loom id.')
        .optional()
        .describe('Extend this loom; leave out to create a new one. Never inferred from history.'),
      // A number refined to an integer, not z.int(): zod's integer check stops the object's rules
      // at a fraction, and the one with loom_id below is named first, as it always was.
      expected_version: z
        .number({ error: 'expected_version must be a positive integer.' })
        .refine((v) => Number.isSafeInteger(v) && v >= 1)
        .meta({ type: 'integer' })
        .optional()
        .describe('Refuse unless the loom is at this version (needs loom_id).'),
      components: z
        .array(ComponentInput, { error: COMPONENTS })
        // A refinement that always runs, not .min()/.max(): the count is named before any component's
        // problem, and the checks of the other fields run whatever the count.
        .check(
          z.refine((list) => list.length >= 1 && list.length <= LIMITS.maxComponents, {
            message: COMPONENTS,
            when: (payload) => Array.isArray(payload.value),
          }),
        )
        .describe(`1 to ${LIMITS.maxComponents} components, each exactly one ref or pattern_token.`),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `Unknown field "${cutId(issue.keys[0] ?? '', 64)}".`
          : 'loom_compose takes { request_id, loom_id?, expected_version?, components }.',
    },
  )
  .check(
    z.refine((input) => input.expected_version === undefined || input.loom_id !== undefined, {
      message: 'expected_version guards an existing loom: give loom_id with it.',
      path: ['expected_version'],
      params: ahead,
      when: (payload) => isRecord(payload.value),
    }),
  );

/** A read loom_compose input; components still hold unresolved `pattern_token`s. */
export type ComposeInput = z.output<typeof ComposeInput>;

/** Reads a loom_compose input; the message says what to fix. */
export function readComposeInput(
  input: unknown,
): { ok: true; value: ComposeInput } | { ok: false; message: string } {
  const read = readInput(ComposeInput, input);
  if (read.ok) return read;
  const [field, index] = read.issue.path;
  const message =
    field === 'components' && typeof index === 'number'
      ? `components[${index}]${read.issue.message}`
      : read.issue.message;
  return { ok: false, message };
}
