// The pack language, defined once: a pack, its commands and inputs, and a `standard:` entry, as a
// file declares them in its `command_packs` list. A workspace file (`@harness/workspace`) embeds
// these definitions; every other view (its JSON Schema for editors, the TypeScript input types) is
// derived from them.
import {
  BYTE_SIZE_PATTERN,
  DURATION,
  ENV_NAME_PATTERN,
  ID_PATTERN,
  MAX_BYTE_SIZE,
  MAX_DURATION_MS,
  parseByteSize,
  parseDuration,
} from '@harness/config';
import { id as idOf, strict } from '@harness/config/zod';
import { z } from 'zod';
import { EXIT_FAILURES } from './exit-failures';
import { STANDARD_PACK_IDS } from './standard/library';

/** Pattern of input names and credential names: one tmpl path segment. */
export const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
/** Pattern of scopes: OIDC-style `noun:verb`. */
export const SCOPE_PATTERN = /^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*$/;
/** Pattern of a version constraint: comparators `>= <= == > <`, comma-separated. */
export const CONSTRAINT_PATTERN =
  /^\s*(>=|<=|==|>|<)\s*\d+(\.\d+){0,2}\s*(,\s*(>=|<=|==|>|<)\s*\d+(\.\d+){0,2}\s*)*$/;

// Pack and command ids have no dots: the dot separates pack and command in manifest ids.
const id = (what: string) => idOf(what, ID_PATTERN);

/** A permission tier: `open`, `cautious`, `strict` or `readonly`. */
export const tierSchema = z
  .enum(['open', 'cautious', 'strict', 'readonly'], {
    error: 'expected a permission tier: open, cautious, strict or readonly',
  })
  .meta({ description: 'Permission tier. Default cautious.' });

const APPROVAL_WAIT_EXPECTED = 'expected a wait such as 2m or 90s (above 0, at most 24h), or 0 for none';
/** `approval_wait` written as no wait: `0`, `"0"`, or a zero duration such as `0s`. */
const NO_WAIT_PATTERN = /^0+(?:\.0+)?(?:ms|s|m|h)?$/;

/** The wait an `approval_wait` value names, in ms (0: none); the value must be schema-valid. */
export function approvalWaitMs(value: string | number | undefined): number {
  if (value === undefined || value === 0 || (typeof value === 'string' && NO_WAIT_PATTERN.test(value)))
    return 0;
  return parseDuration(String(value)) ?? 0;
}

/** A duration (`30s`, `5m`, `500ms`): above 0, at most 24 h. */
export const durationSchema = z
  .string({ error: 'expected a duration such as 30s, 5m or 500ms' })
  .regex(DURATION.pattern, { error: 'expected a duration such as 30s, 5m or 500ms', abort: true })
  .refine((s) => parseDuration(s) !== undefined, {
    error: `expected a duration above 0 and at most 24h (${MAX_DURATION_MS} ms)`,
  })
  .meta({ description: 'A duration: a number and ms, s, m or h.', examples: ['30s', '5m'] });

/**
 * How long a call held for approval waits for a person's decision before it answers: a duration, or
 * `0` for no wait (the call answers `approval_required` at once, as without the key).
 */
export const approvalWaitSchema = z
  .union(
    [
      z.literal(0),
      z
        .string()
        .regex(NO_WAIT_PATTERN, { error: APPROVAL_WAIT_EXPECTED })
        .meta({ description: 'No wait, written as a duration: 0, 0s.' }),
      durationSchema,
    ],
    { error: APPROVAL_WAIT_EXPECTED },
  )
  .meta({
    description:
      "How long a call held for approval waits for a person's decision (e.g. 2m, 90s) before it answers approval_required; 0 or absent: it answers at once. Never past the approval's own expiry.",
    examples: ['2m', 0],
  });

/** A byte size (`10MB`, `512KiB`): above 0, at most 1 GiB. */
export const sizeSchema = z
  .string({ error: 'expected a size such as 10MB, 512KB or 10MiB' })
  .regex(BYTE_SIZE_PATTERN, {
    error: 'expected a size such as 10MB, 512KB or 10MiB',
    abort: true,
  })
  .refine((s) => parseByteSize(s) !== undefined, {
    error: `expected a size above 0 and at most 1GiB (${MAX_BYTE_SIZE} bytes)`,
  })
  .meta({
    description: 'A byte size: KB/MB/GB are powers of 10, KiB/MiB/GiB powers of 2.',
    examples: ['10MB'],
  });

/** A scope a caller must hold: OIDC-style `noun:verb`. */
export const scopeSchema = z
  .string({ error: 'expected a scope such as repo:read (a string)' })
  .regex(SCOPE_PATTERN, { error: 'expected a scope of the form noun:verb, e.g. workspace:read' });

const name = (what: string) =>
  z
    .string({ error: `expected ${article(what)} ${what} name (a string)` })
    .regex(NAME_PATTERN, { error: `expected ${article(what)} ${what} name matching [a-z][a-z0-9_]*` });

const article = (word: string): string => (/^[aeiou]/.test(word) ? 'an' : 'a');

const atom = z.union([z.string(), z.record(z.string(), z.unknown())], {
  error: 'expected a label atom (a string or an object)',
});
/** An information-flow label (@harness/ifc): confidentiality clauses and integrity atoms. */
export const labelSchema = strict({
  confidentiality: z
    .array(
      z.union([atom, strict({ anyOf: z.array(atom) })], {
        error: 'expected a clause: an atom or { anyOf: [atoms] }',
      }),
    )
    .optional(),
  integrity: z.array(atom).optional(),
}).meta({
  description: 'Information-flow label of the answers (@harness/ifc), passed to the manifest as `ifc`.',
});

const INPUT_KEYWORDS = [
  'type',
  'description',
  'title',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'allow_leading_dash',
  'code',
  'default',
  'within_cwd',
  'enum_from_workspace',
];

/** A value one argv element can hold: an input's `default`, an `enum` member. */
const scalar = z.union([z.string(), z.number(), z.boolean()], {
  error: 'expected a string, a number or true/false',
});

const input = z
  .object({
    type: z
      .enum(['string', 'integer', 'number', 'boolean'], {
        error: 'expected an input type that fits one argv element: string, integer, number or boolean',
      })
      .optional(),
    description: z.string().optional(),
    title: z.string().optional(),
    enum: z.array(scalar).min(1).optional(),
    pattern: z.string().optional(),
    minLength: z.int().nonnegative().optional(),
    maxLength: z.int().nonnegative().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    allow_leading_dash: z.boolean({ error: 'expected allow_leading_dash true or false' }).optional().meta({
      description:
        'The value may begin its argv element with "-" when a literal "--" precedes it. Only for programs that honour "--" (not find, not a wrapper that hands the value on). Default false. Not shown to the model.',
    }),
    code: z.boolean({ error: 'expected code true or false' }).optional().meta({
      description:
        'The value reaches the program as code (a filter, an expression, a script). `packs check` warns when such a command receives a credential. Default false. Not shown to the model.',
    }),
    default: scalar.optional().meta({
      description:
        'The value used when a call leaves the input out (the input is then optional); checked at load against the input. Shown to the model.',
    }),
    within_cwd: z.boolean({ error: 'expected within_cwd true or false' }).optional().meta({
      description:
        "A string input holding a path that must stay inside the pack's cwd: refused when absolute, when it has a .. segment, or when a symlink on the way leads outside (checked when the call is rendered). Default false. Not shown to the model.",
    }),
    enum_from_workspace: z.boolean({ error: 'expected enum_from_workspace true or false' }).optional().meta({
      description:
        "The values this input accepts are listed by the workspace (input_overrides: { <command>: { <input>: { enum: [...] } } }); until it does, the command is not offered (a warning; a grant of it fails the load). For bundled packs (make's targets). Not shown to the model.",
    }),
  })
  .catchall(z.unknown())
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (!INPUT_KEYWORDS.includes(key) && !key.startsWith('x-')) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `expected only the keywords ${INPUT_KEYWORDS.join(', ')} or x-*; unknown keyword "${key}"`,
        });
      }
    }
    if (value.within_cwd === true && (value.type ?? 'string') !== 'string') {
      ctx.addIssue({
        code: 'custom',
        path: ['within_cwd'],
        message: 'expected within_cwd on a string input only (a path is a string)',
      });
    }
    if (typeof value.pattern === 'string') {
      try {
        new RegExp(value.pattern, 'u');
      } catch {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'expected a valid regular expression' });
      }
    }
  })
  .meta({ description: 'JSON Schema of one input; it must fit one argv element.' });

const sandboxPaths = (what: string) =>
  z
    .array(z.string({ error: `expected a ${what} path (a string)` }).min(1), {
      error: `expected a list of ${what} paths`,
    })
    .meta({ description: `Paths: absolute, ~/… (the serving user's home) or relative to the pack's cwd.` });

/** A sandbox block: `false`, or the filesystem, network, Unix sockets and processes a run may touch. */
export const sandboxSchema = z
  .union(
    [
      z.literal(false),
      strict({
        filesystem: strict({
          read: sandboxPaths('readable').optional().meta({
            description: 'Readable paths. Default: the whole filesystem, read-only, minus the deny list.',
          }),
          write: sandboxPaths('writable').optional().meta({
            description: "Writable paths. Default: nothing for read commands, the pack's cwd for writes.",
          }),
          deny: sandboxPaths('denied').optional().meta({
            description: 'Never readable nor writable; a built-in list (~/.ssh, ~/.aws, …) is always added.',
          }),
          home: sandboxPaths('home').optional().meta({
            description:
              'What of the home the command reads (~/…, read-only), beside the project and the common toolchain installs; the rest of the home is hidden. Ignored with a read list.',
          }),
        }).optional(),
        network: z
          .union(
            [
              z.enum(['none', 'loopback', 'host']),
              strict({ allow: z.array(z.string({ error: 'expected a domain (a string)' })) }),
            ],
            { error: 'expected network none, loopback, host or { allow: [domains] }' },
          )
          .optional()
          .meta({ description: 'none (default), loopback, host; { allow: [...] } is not supported yet.' }),
        unix_sockets: sandboxPaths('Unix socket').optional().meta({
          description:
            'Unix sockets the command may connect to. Default: none (a confined command opens no Unix socket).',
        }),
        processes: z
          .int({ error: 'expected processes as a whole number' })
          .min(1, { error: 'expected processes of at least 1' })
          .max(65_536, { error: 'expected processes of at most 65536' })
          .optional()
          .meta({ description: 'Most processes (and threads) alive at once. Default: no limit.' }),
      }),
    ],
    { error: 'expected a sandbox block { filesystem, network, unix_sockets, processes } or false' },
  )
  .meta({
    description:
      'Confinement (bubblewrap on Linux, sandbox-exec on macOS). false: unconfined. Read commands are confined by default.',
  });

const argv = z
  .array(z.string({ error: 'expected an argv element (a string)' }), {
    error: 'expected an argv list of strings',
  })
  .min(1, { error: 'expected at least one argv element (the executable)' })
  .meta({ description: 'Frozen argv template; {{name}} placeholders are the inputs. Never a shell.' });

const requirement = strict({
  binary: z
    .string({ error: 'expected a binary name (a string)' })
    .regex(/^[A-Za-z0-9._+-]+$|^\/\S+$/, { error: 'expected a binary name such as jq, or an absolute path' }),
  version: z
    .string({ error: 'expected a version constraint such as >=1.7 (a string)' })
    .regex(CONSTRAINT_PATTERN, {
      error: 'expected a version constraint such as >=1.7 (operators >= <= == > <)',
    })
    .optional(),
});

const example = strict({
  args: z
    .record(z.string(), z.unknown(), { error: 'expected the example arguments as a map' })
    .optional()
    .meta({ description: 'The call arguments. Default {}.' }),
  argv: z
    .array(z.string({ error: 'expected an argv element (a string)' }), {
      error: 'expected the argv these arguments render to (a list of strings)',
    })
    .optional()
    .meta({ description: 'The exact argv the arguments render to.' }),
  refused: z
    .string({ error: 'expected what refuses it: an issue code, a reason or words of the message' })
    .min(1, { error: 'expected what refuses it, not an empty string' })
    .optional()
    .meta({
      description:
        'The arguments must be refused: an issue code (invalid_args), a reason (flag_injection, path_outside_cwd) or words of the message.',
    }),
})
  .superRefine((value, ctx) => {
    if ((value.argv === undefined) === (value.refused === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          'expected an example with exactly one of argv (what it renders to) or refused (why it is refused)',
      });
    }
  })
  .meta({
    description: 'Arguments and the argv they render to, or arguments that must be refused; checked at load.',
  });

const examples = z.array(example, { error: 'expected a list of examples' }).meta({
  description: 'Checked at load: each { args, argv } must render exactly, each { args, refused } be refused.',
});

const values = z
  .record(
    name('input'),
    z.record(z.string(), z.string({ error: 'expected the text a value renders as (a string)' }), {
      error: 'expected a map from each value of the input to the text it renders as',
    }),
  )
  .meta({
    description:
      'Per boolean or enum input, the literal text each value renders as in argv ("true": fixed-strings). Every value must be mapped.',
  });

const display = z
  .string({ error: 'expected a display line (a string), e.g. git commit --message "{{message}}"' })
  .trim()
  .min(1, { error: 'expected a display line, not an empty string' })
  .max(500, { error: 'expected a display line of at most 500 characters' })
  .meta({
    description:
      'The line a person reads when a call is held for approval, e.g. git commit --message "{{message}}": {{name}} and {{name?}} name inputs, whose values are escaped (and cut past 120 characters) when it is rendered. Default: the argv is shown.',
  });

const preview = strict({
  command: id('command').meta({ description: 'A read command of the same pack, by id (staged_diff).' }),
  args: z
    .record(name('input'), scalar, { error: 'expected the preview arguments as a map' })
    .optional()
    .meta({
      description: 'Its arguments: a literal, or "{{name}}" for the value the held call gives input name.',
    }),
}).meta({
  description:
    'A read command of the same pack run, confined, when a call is held for approval; the first 40 lines (4 KiB) of its output are shown with the approval. Its failure is shown too and never blocks the approval.',
});

const variant = strict({
  requires: z
    .array(requirement)
    .optional()
    .meta({ description: 'Probed at load; the first variant whose requirements hold is used.' }),
  argv,
  values: values.optional(),
  examples: examples.optional(),
}).meta({ description: 'One way to run the command, for the machine that has its requirements.' });

/**
 * `plan_inputs`: project files a command runs as code (a Makefile, `package.json`), relative to the
 * pack's cwd. Their bytes are part of the plan an approval binds (docs/packs.md, "Plan inputs").
 */
const planInputs = z
  .array(
    z
      .string({ error: 'expected a file path (a string) relative to the pack cwd, e.g. Makefile' })
      .min(1, { error: 'expected a file path relative to the pack cwd, not an empty string' })
      .refine((p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\0'), {
        error:
          'expected a path relative to the pack cwd with no ".." segment, e.g. Makefile or .cargo/config.toml',
      }),
    { error: 'expected a list of file paths relative to the pack cwd, e.g. plan_inputs: [Makefile]' },
  )
  .meta({
    description:
      "Project files the command runs as code (Makefile, package.json), relative to the pack's cwd: an approval binds their bytes (SHA-256; a missing file counts as absent), so an edit after it was given asks a person anew.",
  });

/** An exit code 0-255 written as a map key (`"1"`). */
const EXIT_CODE_KEY = /^(?:[0-9]|[1-9][0-9]|1[0-9]{2}|2[0-4][0-9]|25[0-5])$/;

/**
 * `failure_exit_codes`: exit codes that mean a named failure (`{ 1: tests_failed }`): the run is
 * not ok, and it says which failure rather than `exit_nonzero` (docs/packs.md).
 */
const failureExitCodes = z
  .record(
    z.string().regex(EXIT_CODE_KEY, {
      error: 'expected an exit code 0-255 as the key, e.g. failure_exit_codes: { 1: tests_failed }',
    }),
    z.enum(EXIT_FAILURES, { error: `expected a failure name: ${EXIT_FAILURES.join(', ')}` }),
    { error: 'expected a map from exit code to failure name, e.g. failure_exit_codes: { 1: tests_failed }' },
  )
  .meta({
    description: `Exit codes that mean a named failure (${EXIT_FAILURES.join(', ')}): the call is not ok and says which failure, with everything the command printed. An exit code is in ok_exit_codes or here, not both.`,
  });

const command = strict({
  id: id('command'),
  title: z.string().optional().meta({ description: 'One short line; default: first line of description.' }),
  description: z.string().optional(),
  argv: argv.optional(),
  variants: z
    .array(variant, { error: 'expected a list of variants' })
    .min(1, { error: 'expected at least one variant' })
    .optional()
    .meta({
      description:
        'Instead of argv: ways to run the command, tried in order at load (rg, else grep); the first whose requires hold is used.',
    }),
  inputs: z
    .record(name('input'), input)
    .optional()
    .meta({ description: 'JSON Schema properties map; default: one string per placeholder.' }),
  values: values.optional(),
  examples: examples.optional(),
  display: display.optional(),
  preview: preview.optional(),
  effects: z
    .enum(['read', 'write'], { error: 'expected effects read or write' })
    .optional()
    .meta({ description: 'Declared effects. Undeclared means write.' }),
  output: strict({
    parse: z.enum(['text', 'json', 'lines'], { error: 'expected output parse text, json or lines' }),
    sort: z
      .boolean({ error: 'expected sort true or false' })
      .optional()
      .meta({ description: 'With parse: lines, sort the lines (by code point). Default false.' }),
  })
    .superRefine((value, ctx) => {
      if (value.sort === true && value.parse !== 'lines') {
        ctx.addIssue({ code: 'custom', path: ['sort'], message: 'expected sort only with parse: lines' });
      }
    })
    .optional(),
  ok_exit_codes: z
    .array(
      z
        .int({ error: 'expected an exit code (an integer 0-255), e.g. ok_exit_codes: [0, 1]' })
        .min(0, { error: 'expected an exit code 0-255' })
        .max(255, { error: 'expected an exit code 0-255' }),
      { error: 'expected a list of exit codes, e.g. ok_exit_codes: [0, 1]' },
    )
    .min(1, { error: 'expected at least one exit code, e.g. ok_exit_codes: [0]' })
    .optional()
    .meta({
      description:
        'Exit codes that mean success. Default [0]. grep exits 1 when it finds nothing: [0, 1] reads that as an empty result, not a failure.',
    }),
  failure_exit_codes: failureExitCodes.optional(),
  unchanged_exit_codes: z
    .array(
      z
        .int({ error: 'expected an exit code (an integer 1-255), e.g. unchanged_exit_codes: [128]' })
        .min(1, { error: 'expected an exit code 1-255 (0 is success)' })
        .max(255, { error: 'expected an exit code 1-255' }),
      { error: 'expected a list of exit codes, e.g. unchanged_exit_codes: [128]' },
    )
    .optional()
    .meta({
      description:
        "Exit codes with which a write is known to have changed nothing (git commit's 1, nothing to commit, and 128, refused before it wrote a commit): its failure then says so, instead of 'may have landed'.",
    }),
  label: labelSchema.optional(),
  credential_output_unlabeled: z
    .string({ error: 'expected a reason (a string) why this output reveals no credential' })
    .trim()
    .min(1, { error: 'expected a reason why this output reveals no credential, not an empty string' })
    .optional()
    .meta({
      description:
        "Opt-out, with the reason: the output of a command whose pack's env holds a credential carries the atom credential:<name> for each; with this key it does not, and `packs check` warns. Redaction removes only a credential's literal value.",
    }),
  scopes: z.array(scopeSchema).optional().meta({ description: 'Scopes a caller must hold (noun:verb).' }),
  sandbox: sandboxSchema.optional().meta({ description: "Overrides the pack's sandbox, field by field." }),
  plan_inputs: planInputs.optional(),
}).superRefine((value, ctx) => {
  if (value.argv === undefined && value.variants === undefined) {
    // Said as zod says a missing key, so the message reads as every other missing field's.
    ctx.addIssue({
      code: 'invalid_type',
      expected: 'array',
      input: undefined,
      path: ['argv'],
      message: 'expected an argv list of strings',
    });
  } else if (value.argv !== undefined && value.variants !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['variants'],
      message: 'expected argv or variants, not both (each variant has its own argv)',
    });
  }
  if (value.variants !== undefined && value.inputs === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['inputs'],
      message: 'expected inputs declared beside variants (every variant renders the same inputs)',
    });
  }
});

const inputOverride = strict({
  enum: z.array(scalar).min(1, { error: 'expected at least one value' }).optional().meta({
    description: "Narrows the input to these values; each must be one the command's own input accepts.",
  }),
  description: z.string().optional().meta({ description: "Replaces the input's description." }),
  default: scalar
    .optional()
    .meta({ description: "Replaces the input's default; checked against the input." }),
});

/** The keys of a pack, shared by a pack of the file's own and a `standard:` entry. */
const packShape = {
  id: id('pack'),
  description: z.string().optional(),
  permission: tierSchema.optional(),
  permission_overrides: z.record(id('command'), tierSchema).optional(),
  unattended_when_confined: z.array(id('command')).optional().meta({
    description:
      "Write commands of this pack that run without a person's approval under the cautious tier when, and only when, they run confined on this machine: writing only inside the pack's cwd (its .git, .harness and client configs read-only), with no network, no Unix socket, no credential in their env and the home by allow-list. A listed command that is not confined here (no sandbox mechanism, the network, a write outside the project, .git) still asks, and the load says why.",
  }),
  timeout: durationSchema.optional().meta({ description: 'Default 30s.' }),
  timeout_overrides: z.record(id('command'), durationSchema).optional(),
  approval_wait: approvalWaitSchema.optional().meta({
    description:
      "How long a call of this pack held for approval waits for a person's decision before it answers; overrides the workspace's approval_wait. 0: answer at once.",
  }),
  approval_timeout: durationSchema.optional().meta({
    description:
      "How long an approval request of this pack stays open for a person before it expires and the call is refused (approval_expired); overrides the workspace's approval_timeout. Default 15m.",
  }),
  telemetry: z
    .strictObject({
      include_args: z.boolean().meta({
        description:
          "true: OpenTelemetry spans of this pack's calls carry their argument values (harness.command.args); default false: never.",
      }),
    })
    .optional()
    .meta({ description: 'What telemetry (harness serve --otel) may export of this pack’s calls.' }),
  input_overrides: z
    .record(id('command'), z.record(name('input'), inputOverride))
    .optional()
    .meta({
      description:
        "Per command and input: narrow an input's enum, replace its description or default. Never widens what the command accepts.",
    }),
  max_output: sizeSchema.optional().meta({ description: 'Ceiling on stdout + stderr. Default 10MiB.' }),
  requires: z.array(requirement).optional(),
  cwd: z.string().optional().meta({ description: 'Working directory, relative to the workspace file.' }),
  env: z
    .record(
      z.string().regex(ENV_NAME_PATTERN, { error: 'expected an environment variable name' }),
      z.string({ error: 'expected an env value (a string)' }),
    )
    .optional()
    .meta({ description: 'The whole environment besides PATH; {{credential.NAME}} allowed here only.' }),
  credentials_ref: z
    .union([name('credential'), z.array(name('credential'))], {
      error: 'expected a credential name or a list of them',
    })
    .optional(),
  label: labelSchema.optional(),
  optional: z.boolean({ error: 'expected true or false' }).optional(),
  scopes: z.array(scopeSchema).optional().meta({ description: 'Scopes every command of the pack requires.' }),
  sandbox: sandboxSchema.optional(),
  plan_inputs: planInputs.optional().meta({
    description:
      "Project files every command of the pack runs as code; a command's own plan_inputs add to these.",
  }),
  commands: z
    .array(command, { error: 'expected a list of commands' })
    .min(1, { error: 'expected at least one command' }),
};

/** One entry of `command_packs`: a pack of the file's own (a `standard:` entry once merged is one too). */
export const packSchema = strict(packShape);

/** The keys a `standard:` entry may set over its bundled pack: every pack key but `commands`. */
export const STANDARD_ENTRY_KEYS: readonly string[] = [
  'standard',
  ...Object.keys(packShape).filter((k) => k !== 'commands'),
];

// A `standard:` entry as written: the bundled pack's name and any pack key but commands over it.
const { id: _id, commands: _commands, ...overridable } = packShape;

/**
 * A `standard:` entry as a person writes it: a bundled pack's name and any pack key but `commands`
 * over it. The loader merges it into a pack before the schema sees it; editors see this form.
 */
export const standardEntrySchema = strict({
  standard: z.enum(STANDARD_PACK_IDS as [string, ...string[]]).meta({
    description: 'A standard pack bundled with @harness/packs (docs/standard-packs.md).',
  }),
  id: id('pack').optional().meta({ description: "Default: the standard pack's name." }),
  ...overridable,
}).meta({
  description:
    'A bundled standard pack; any other key overrides the bundled one (docs/standard-packs.md, "Overriding a standard pack").',
});

/** The `command_packs` list: the packs a file declares, each `standard:` entry already merged. */
export const commandPacksSchema = z.array(packSchema, { error: 'expected a list of packs' });

/**
 * A file of command packs alone, each `standard:` entry already merged: what {@link loadPacks}
 * checks. A workspace file declares the same list beside its settings and agents.
 */
export const packsFileSchema = strict({ command_packs: commandPacksSchema.optional() });
