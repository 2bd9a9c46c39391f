// The validation matrix: which harness keys each kind accepts (seed 004 leaves the table empty; this
// is the project's decision, documented in docs/runner.md "The validation matrix" and tested cell
// by cell). Rules that involve several keys at once are in load.ts.
import { AGENT_KINDS, type HarnessKind } from './schema';

/** What the matrix says of one key for one kind. */
export type Cell = 'required' | 'allowed' | 'forbidden';

/** The keys the matrix governs (`id` and `kind` are always required). */
export const MATRIX_KEYS = [
  'argv',
  'args',
  'shell',
  'transcripts',
  'prompt',
  'prompt_file',
  'prompt_template',
  'prompt_template_file',
  'prompt_delivery',
  'untrusted_inline',
  'model',
  'resident',
  'schedule',
  'trigger',
  'workdir',
  'env',
  'env_inherit',
  'timeout',
  'max_output',
  'tools',
] as const;
/** One of {@link MATRIX_KEYS}. */
export type MatrixKey = (typeof MATRIX_KEYS)[number];

type Row = Readonly<Record<'command' | 'agent' | 'crush' | 'generic', Cell>>;

const ANY: Row = { command: 'allowed', agent: 'allowed', crush: 'allowed', generic: 'allowed' };
const NOT_GENERIC: Row = { command: 'allowed', agent: 'allowed', crush: 'allowed', generic: 'forbidden' };

const ROWS: Readonly<Record<MatrixKey, Row>> = {
  argv: { command: 'required', agent: 'forbidden', crush: 'forbidden', generic: 'forbidden' },
  args: { command: 'forbidden', agent: 'allowed', crush: 'allowed', generic: 'forbidden' },
  shell: { command: 'forbidden', agent: 'forbidden', crush: 'forbidden', generic: 'required' },
  transcripts: { command: 'allowed', agent: 'forbidden', crush: 'forbidden', generic: 'forbidden' },
  prompt: NOT_GENERIC,
  prompt_file: NOT_GENERIC,
  prompt_template: NOT_GENERIC,
  prompt_template_file: NOT_GENERIC,
  prompt_delivery: { command: 'allowed', agent: 'forbidden', crush: 'forbidden', generic: 'forbidden' },
  untrusted_inline: NOT_GENERIC,
  model: { command: 'allowed', agent: 'allowed', crush: 'forbidden', generic: 'forbidden' },
  resident: ANY,
  schedule: ANY,
  trigger: ANY,
  workdir: ANY,
  env: ANY,
  env_inherit: ANY,
  timeout: ANY,
  max_output: ANY,
  tools: { command: 'allowed', agent: 'allowed', crush: 'forbidden', generic: 'forbidden' },
};

/** Cells where one agent kind differs from the other agents. */
const AGENT_EXCEPTIONS: Readonly<Partial<Record<MatrixKey, Partial<Record<HarnessKind, Cell>>>>> = {
  // Pi (and its fork omp) has no MCP client, by design: no way to hand a run its tools.
  tools: { pi: 'forbidden', omp: 'forbidden' },
};

/** The matrix cell of `key` for `kind`. */
export function cell(key: MatrixKey, kind: HarnessKind): Cell {
  const exception = AGENT_EXCEPTIONS[key]?.[kind];
  if (exception !== undefined) return exception;
  const row = ROWS[key];
  if (kind === 'command' || kind === 'generic' || kind === 'crush') return row[kind];
  return (AGENT_KINDS as readonly string[]).includes(kind) ? row.agent : row.generic;
}

/** Why a forbidden cell is forbidden, for the load error (one short clause per key). */
export const FORBIDDEN_WHY: Readonly<Partial<Record<MatrixKey, string>>> = {
  argv: 'only a command harness has an argv; an agent kind builds its own from the prompt',
  args: 'args are appended to an agent executable for a resident run; a command harness writes its whole argv',
  shell: 'only a generic harness runs a shell one-liner',
  transcripts:
    'an agent kind is observed through its own adapter; transcripts names one for a command harness',
  prompt_delivery:
    'built-in adapters always take the prompt in argv; stdin and file delivery are for command harnesses',
  model: 'crush run takes no model option',
  tools:
    'a run gets its tools through the MCP configuration of claude-code or codex, or HARNESS_MCP_CONFIG for a command harness; pi and omp have no MCP client, crush reads MCP servers only from its own configuration file, and generic runs sh -c',
};
