// Load-time warnings about leading dashes: an element a value starting with "-" would be refused in
// at run time while the schema lets the model send one, and a leading dash declared allowed for a
// program that does not honour `--` (or a wrapper that hands the value on).
import { parse as parseTemplate } from '@harness/tmpl';

/** One warning, at a path relative to the command entry (`['argv', 3]`, `['inputs', 'x']`). */
export interface ArgvSafetyWarning {
  readonly at: readonly (string | number)[];
  /** The input whose leading dash the warning is about. */
  readonly input: string;
  readonly message: string;
}

/** The parts of a command entry these checks read (as written in the file). */
export interface ArgvSafetySource {
  readonly argv: readonly string[];
  readonly inputs?: Readonly<Record<string, ArgvSafetyInput>> | undefined;
}

/** The parts of an input's schema these checks read. */
export interface ArgvSafetyInput {
  readonly allow_leading_dash?: boolean | undefined;
  readonly type?: string | undefined;
  readonly enum?: readonly unknown[] | undefined;
  readonly pattern?: string | undefined;
  readonly minimum?: number | undefined;
}

// Values a pattern must refuse to be read as forbidding a leading dash.
const DASHED = ['-', '-a', '-A', '-0', '-1', '--a', '--a=b', '-.', '-/', '-_', '-a-b', '- a'];

/** Whether every value the schema accepts is sure not to begin with "-" (so no run is refused for one). */
function forbidsLeadingDash(schema: ArgvSafetyInput): boolean {
  if (schema.type === 'boolean') return true;
  if (schema.enum !== undefined) return schema.enum.every((v) => !String(v).startsWith('-'));
  if (schema.type === 'integer' || schema.type === 'number')
    return schema.minimum !== undefined && schema.minimum >= 0;
  if (schema.pattern === undefined) return false;
  try {
    const re = new RegExp(schema.pattern, 'u');
    return DASHED.every((v) => !re.test(v));
  } catch {
    return false;
  }
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
 * Warnings for one command: an element that starts with an input's value, with no literal `--`
 * before it, whose schema does not forbid a leading `-` (the run refuses such a value, and the model
 * cannot know); and `allow_leading_dash` on an input whose program does not honour `--`, is a
 * wrapper, or has no literal `--` before the value.
 */
export function argvSafetyWarnings(command: ArgvSafetySource): ArgvSafetyWarning[] {
  const warnings: ArgvSafetyWarning[] = [];
  const program = programOf(command.argv);
  const inputs = command.inputs ?? {};
  command.argv.forEach((element, i) => {
    const name = i > 0 ? leadingInput(element) : undefined;
    if (name === undefined || command.argv.slice(1, i).includes('--')) return;
    // Undeclared inputs are plain strings: nothing forbids a leading dash.
    const schema = inputs[name] ?? {};
    if (schema.allow_leading_dash === true || forbidsLeadingDash(schema)) return;
    warnings.push({
      at: ['argv', i],
      input: name,
      message: `argv[${i}] starts with {{${name}}}, so a value beginning with "-" (e.g. "-v") is refused when the command runs, though input "${name}" does not say so to the model; give the input a pattern that forbids a leading dash (pattern: "^[^-]"), or put a literal "--" element before it and set allow_leading_dash: true if ${program || 'the program'} honours "--"`,
    });
  });
  for (const [name, schema] of Object.entries(inputs)) {
    if (schema.allow_leading_dash !== true) continue;
    const at = ['inputs', name, 'allow_leading_dash'];
    const positions = command.argv.flatMap((e, i) => (i > 0 && leadingInput(e) === name ? [i] : []));
    const unguarded = positions.filter((i) => !command.argv.slice(1, i).includes('--'));
    if (IGNORES_DOUBLE_DASH.has(program)) {
      warnings.push({
        at,
        input: name,
        message: `input "${name}" may start with "-", but ${program} does not honour "--" (\`find -- -delete\` deletes); remove allow_leading_dash`,
      });
    } else if (WRAPPERS.has(program)) {
      warnings.push({
        at,
        input: name,
        message: `input "${name}" may start with "-", but ${program} runs something else: its "--" ends only its own options, and the value reaches the next program as it is, where "-f" or "--delete" is an option; remove allow_leading_dash, or make the wrapped program honour "--"`,
      });
    } else {
      warnings.push({
        at,
        input: name,
        message: `input "${name}" may start with "-" after a literal "--": safe only because ${program} honours "--"; check that it does`,
      });
    }
    for (const i of unguarded) {
      warnings.push({
        at: ['argv', i],
        input: name,
        message: `allow_leading_dash of input "${name}" has no effect here: no literal "--" comes before this element, so a value starting with "-" is still refused`,
      });
    }
  }
  return warnings;
}
