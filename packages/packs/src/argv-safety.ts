// Load-time warnings about what a literal `--` and value-only argv cannot protect: a leading dash
// declared allowed for a program that does not honour `--` (or a wrapper that hands the value on).
import { parse as parseTemplate } from '@harness/tmpl';

/** One warning, at a path relative to the command entry (`['argv', 3]`, `['inputs', 'x']`). */
export interface ArgvSafetyWarning {
  readonly at: readonly (string | number)[];
  readonly message: string;
}

/** The parts of a command entry these checks read (as written in the file). */
export interface ArgvSafetySource {
  readonly argv: readonly string[];
  readonly inputs?:
    | Readonly<Record<string, { readonly allow_leading_dash?: boolean | undefined }>>
    | undefined;
}

// Programs that read an element after `--` as something other than an operand: `find -- -delete`
// deletes. A leading dash is never safe for them.
const IGNORES_DOUBLE_DASH = new Set(['find']);

// Programs that run another program (or a script that does): their own `--` ends only their own
// options, and the value reaches the next program as it is (`node -e '…execFile("jq", [f])' -- -f`).
const WRAPPERS = new Set([
  'node',
  'deno',
  'bun',
  'python',
  'python3',
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'perl',
  'ruby',
  'php',
  'env',
  'xargs',
  'sudo',
  'npx',
  'timeout',
  'nice',
  'nohup',
  'stdbuf',
]);

const programOf = (argv: readonly string[]): string => (argv[0] ?? '').split('/').pop() ?? '';

/** The input named by the placeholder an argv element starts with, if it starts with one. */
function leadingInput(element: string): string | undefined {
  const t = parseTemplate(element);
  if (!t.ok) return undefined;
  const first = t.template.refs()[0];
  return first !== undefined && first.offset === 0 && first.form !== 'untrusted' ? first.path : undefined;
}

/**
 * Warnings for one command: `allow_leading_dash` on an input whose program does not honour `--`,
 * is a wrapper, or has no literal `--` before the value.
 */
export function argvSafetyWarnings(command: ArgvSafetySource): ArgvSafetyWarning[] {
  const warnings: ArgvSafetyWarning[] = [];
  const program = programOf(command.argv);
  const inputs = command.inputs ?? {};
  for (const [name, schema] of Object.entries(inputs)) {
    if (schema.allow_leading_dash !== true) continue;
    const at = ['inputs', name, 'allow_leading_dash'];
    const positions = command.argv.flatMap((e, i) => (i > 0 && leadingInput(e) === name ? [i] : []));
    const unguarded = positions.filter((i) => !command.argv.slice(1, i).includes('--'));
    if (IGNORES_DOUBLE_DASH.has(program)) {
      warnings.push({
        at,
        message: `input "${name}" may start with "-", but ${program} does not honour "--" (\`find -- -delete\` deletes); remove allow_leading_dash`,
      });
    } else if (WRAPPERS.has(program)) {
      warnings.push({
        at,
        message: `input "${name}" may start with "-", but ${program} runs something else: its "--" ends only its own options, and the value reaches the next program as it is, where "-f" or "--delete" is an option; remove allow_leading_dash, or make the wrapped program honour "--"`,
      });
    } else {
      warnings.push({
        at,
        message: `input "${name}" may start with "-" after a literal "--": safe only because ${program} honours "--"; check that it does`,
      });
    }
    for (const i of unguarded) {
      warnings.push({
        at: ['argv', i],
        message: `allow_leading_dash of input "${name}" has no effect here: no literal "--" comes before this element, so a value starting with "-" is still refused`,
      });
    }
  }
  return warnings;
}
