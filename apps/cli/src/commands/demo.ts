// `harness demo`: starts `harness serve` on a fresh instance over a copy of the example workspace,
// connects the real MCP SDK client to it over stdio, and walks the whole path: the catalog, an
// unattended read, a write held for approval, a readonly refusal, the injection case and a loom
// compose with its idempotent retry. Exit 0 only if every step behaved as expected.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  EntryStatus,
  type ExecutedOutcome,
  type ListCommandsOutcome,
  type ListEntry,
  type LoomComposedOutcome,
  type LoomComposeOutcome,
  OutcomeStatus,
  RefusalCode,
  type RunCommandOutcome,
  TOOL_OUTCOMES,
} from '@harness/commands';
import { approveCommand } from '@harness/config/instance';
import { version } from '../../package.json';
import { parse } from '../args';
import { exampleWorkspace } from '../embedded';
import { bold, dim, green, out, red, spinner } from '../output';
import { selfArgv } from '../self';

const help = `Usage: harness demo [--keep]

Starts harness serve on a fresh instance directory (in the system temp directory) over a copy of
the example workspace, connects a real MCP client over stdio and prints a transcript of each step.
Exit 0 only if every step behaved as expected. --keep leaves the instance directory in place.
Where jq is absent, the jq steps run over packs whose binaries every machine has, and the
transcript says so.`;

type Args = Record<string, unknown>;
interface Step {
  title: string;
  ok: boolean;
  why?: string;
}

/** The entries of a listing; none for a listing that failed. */
function entriesOf(result: ListCommandsOutcome): ListEntry[] {
  switch (result.status) {
    case OutcomeStatus.ok:
      return result.entries;
    case OutcomeStatus.failed_to_deliver:
      return [];
    default:
      result satisfies never;
      return [];
  }
}

/** The executed call a result is; `undefined` for any other. */
function executedOf(result: RunCommandOutcome): ExecutedOutcome | undefined {
  switch (result.status) {
    case OutcomeStatus.executed:
      return result;
    case OutcomeStatus.batch:
    case OutcomeStatus.unknown_command:
    case OutcomeStatus.failed_to_deliver:
    case OutcomeStatus.not_granted:
      return undefined;
    default:
      result satisfies never;
      return undefined;
  }
}

/** The composition a result reports; `undefined` for a refusal or failure. */
function composedOf(result: LoomComposeOutcome): LoomComposedOutcome | undefined {
  switch (result.status) {
    case OutcomeStatus.ok:
      return result;
    case OutcomeStatus.refused:
    case OutcomeStatus.failed:
    case OutcomeStatus.uncertain:
    case OutcomeStatus.cancelled:
    case OutcomeStatus.failed_to_deliver:
      return undefined;
    default:
      result satisfies never;
      return undefined;
  }
}

/** The parts of a command's answer the demo reads: an approval's id, a pack command's output. */
interface AnswerRead {
  approvalId?: string | undefined;
  stderr?: string | undefined;
  output?: unknown;
}

/** What an executed call answered, as far as the demo reads it; nothing for a withheld answer. */
function answerOf(executed: ExecutedOutcome | undefined): AnswerRead {
  const entry = executed?.entry;
  if (entry?.status !== EntryStatus.admitted || entry.value === undefined) return {};
  switch (entry.kind) {
    case 'held':
      return { approvalId: entry.value.approval?.id };
    case 'ran':
      return {
        stderr: entry.value.stderr,
        output: entry.value.status === 'ok' ? entry.value.output : undefined,
      };
    default:
      return {};
  }
}

/** The code an executed call's command answered; `undefined` for a withheld answer or another result. */
const codeOf = (executed: ExecutedOutcome | undefined): string | undefined =>
  executed === undefined || executed.outcome.withheld === true ? undefined : executed.outcome.code;

/** Whether an executed call's command answered ok. */
const answeredOk = (executed: ExecutedOutcome | undefined, ok: boolean): boolean =>
  executed !== undefined && executed.outcome.withheld !== true && executed.outcome.ok === ok;

function hasJq(): boolean {
  try {
    execFileSync('jq', ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** What every step of the demo uses: the MCP client, the instance, and the transcript. */
interface Demo {
  client: import('@modelcontextprotocol/sdk/client/index.js').Client;
  instance: string;
  jq: boolean;
  /** Calls a tool; its whole outcome, for the caller to parse with the tool's outcome schema. */
  call(name: keyof typeof TOOL_OUTCOMES, args: Args): Promise<unknown>;
  runCommand(name: 'run_command' | 'run_read_command', args: Args): Promise<RunCommandOutcome>;
  check(title: string, ok: boolean, why: string): void;
  show(label: string, value: unknown): void;
}

async function catalogStep({ client, call, check, jq }: Demo): Promise<void> {
  out(bold('\n1. The catalog as the model sees it (tools/list, then list_commands)'));
  const tools = await client.listTools();
  for (const t of tools.tools) out(`    tool ${t.name}  readOnlyHint=${String(t.annotations?.readOnlyHint)}`);
  const listing = TOOL_OUTCOMES.list_commands.parse(await call('list_commands', {}));
  const entries = entriesOf(listing);
  for (const e of entries) out(`    ${e.signature}`);
  const names = new Set(entries.map((e) => e.name));
  check(
    'catalog',
    listing.status === OutcomeStatus.ok &&
      names.has('repo.log') &&
      names.has('loom.compose') &&
      names.has('json-tools.query') === jq,
    `listing ${JSON.stringify(listing).slice(0, 300)}`,
  );
}

async function readStep({ runCommand, check, show, jq }: Demo): Promise<void> {
  out(bold('\n2. A read command runs unattended (run_read_command)'));
  const readCall = jq
    ? { command: 'json-tools.query', args: { filter: '.[0].name', file: 'data/people.json' } }
    : { command: 'repo.grep', args: { pattern: 'name' } };
  out(`    run_read_command ${JSON.stringify(readCall)}`);
  const readResult = await runCommand('run_read_command', readCall);
  const read = executedOf(readResult);
  show('outcome', read?.outcome);
  show('entry', read?.entry);
  check(
    'read',
    answeredOk(read, true) && read?.entry.status === EntryStatus.admitted,
    JSON.stringify(readResult).slice(0, 300),
  );
}

async function approvalStep({ runCommand, check, show, jq, instance }: Demo): Promise<void> {
  out(bold('\n3. A write stops at a governance decision, then runs once a person approves it'));
  const writeCall = jq
    ? {
        command: 'json-tools.edit-in-place',
        args: { filter: '.[0].name = "Ada L."', file: 'data/people.json' },
      }
    : { command: 'notes.append', args: { line: 'approved by a person' } };
  out(`    run_command ${JSON.stringify(writeCall)}`);
  const heldResult = await runCommand('run_command', writeCall);
  const held = executedOf(heldResult);
  show('outcome', held?.outcome);
  const approvalId = answerOf(held).approvalId;
  const heldOk = codeOf(held) === RefusalCode.approval_required && approvalId !== undefined;
  check('approval required', heldOk, JSON.stringify(heldResult).slice(0, 1200));
  if (approvalId === undefined) return;
  // The command the agent was told to give a person (the host's hint), run as printed.
  const approve = approveCommand(approvalId, instance);
  out(`    $ ${approve.line}`);
  const [node, harnessBin] = selfArgv();
  const approved = execFileSync(node, [harnessBin, ...approve.argv.slice(1)], { encoding: 'utf8' });
  out(dim(`    ${approved.trim()}`));
  const ranResult = await runCommand('run_command', writeCall);
  const ran = executedOf(ranResult);
  show('outcome', ran?.outcome);
  check('approved write runs', answeredOk(ran, true), JSON.stringify(ranResult).slice(0, 300));
}

async function refusalStep({ runCommand, check, show }: Demo): Promise<void> {
  out(bold('\n4. A readonly pack refuses a declared write, with its reason'));
  const tagResult = await runCommand('run_command', { command: 'repo.tag', args: { name: 'demo' } });
  const tag = executedOf(tagResult);
  show('outcome', tag?.outcome);
  check(
    'readonly refusal',
    codeOf(tag) === RefusalCode.not_granted &&
      tag?.outcome.withheld !== true &&
      tag?.outcome.reason !== undefined,
    JSON.stringify(tagResult).slice(0, 300),
  );
}

async function injectionStep({ runCommand, check, show, jq }: Demo): Promise<void> {
  out(bold('\n5. Injection: a filter of "; rm -rf /" reaches the program as one argument'));
  if (jq) {
    const injResult = await runCommand('run_read_command', {
      command: 'json-tools.query',
      args: { filter: '; rm -rf /', file: 'data/people.json' },
    });
    const inj = executedOf(injResult);
    show('outcome', inj?.outcome);
    const stderr = answerOf(inj).stderr ?? '';
    show('jq said', stderr.trim().split('\n')[0]);
    check(
      'injection is an ordinary jq error',
      answeredOk(inj, false) && /jq: error/.test(stderr),
      JSON.stringify(injResult).slice(0, 400),
    );
    return;
  }
  out(dim('    (jq absent: echo.argv prints the argv it received)'));
  const injResult = await runCommand('run_read_command', {
    command: 'echo.argv',
    args: { value: '; rm -rf /' },
  });
  const inj = executedOf(injResult);
  const printed = answerOf(inj).output;
  show('argv received', printed);
  check(
    'injection stays one argument',
    inj !== undefined && JSON.stringify(printed) === JSON.stringify(['; rm -rf /']),
    JSON.stringify(injResult).slice(0, 400),
  );
}

async function composeStep({ call, check, show }: Demo): Promise<void> {
  out(bold('\n6. A loom compose, and its identical retry returning the original receipt'));
  const compose = {
    request_id: 'demo-compose-1',
    components: [{ ref: 'url:https://example.org/spec', title: 'The spec' }, { ref: 'person:ada' }],
  };
  const firstResult = TOOL_OUTCOMES.loom_compose.parse(await call('loom_compose', compose));
  const first = composedOf(firstResult);
  show('receipt', first?.receipt);
  const againResult = TOOL_OUTCOMES.loom_compose.parse(await call('loom_compose', compose));
  const again = composedOf(againResult);
  show('retry', { replayed: again?.replayed, current_version: again?.current_version });
  check(
    'compose is idempotent',
    first?.replayed === false &&
      again?.replayed === true &&
      JSON.stringify(first.receipt) === JSON.stringify(again.receipt),
    `${JSON.stringify(firstResult).slice(0, 300)} / ${JSON.stringify(againResult).slice(0, 300)}`,
  );
}

const STEPS = [catalogStep, readStep, approvalStep, refusalStep, injectionStep, composeStep];

/** Runs `harness demo`. */
export async function demoCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { keep: { type: 'boolean' } }, false);
  if (values.help) {
    out(help);
    return 0;
  }
  const root = mkdtempSync(join(tmpdir(), 'harness-demo-'));
  const workspaceDir = join(root, 'workspace');
  cpSync(dirname(exampleWorkspace()), workspaceDir, { recursive: true });
  const instance = join(root, 'instance');
  const jq = hasJq();
  const steps: Step[] = [];
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { resultOutcome } = await import('@harness/commands/mcp');
  const [node, harnessBin] = selfArgv();
  const transport = new StdioClientTransport({
    command: node,
    args: [harnessBin, 'serve', '--instance', instance, '--workspace', join(workspaceDir, 'workspace.yaml')],
    env: demoEnv(root),
    stderr: 'pipe',
  });
  // Kept so a failed demo can show what serve said.
  let serveLog = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    serveLog = (serveLog + chunk.toString('utf8')).slice(-4000);
  });
  const client = new Client({ name: 'harness-demo', version });
  // Each result is parsed at this edge with its tool's outcome schema: the steps read typed fields.
  // A call tool's outcome is under `_meta` (its structuredContent is the lean reply a model reads).
  const call = async (name: keyof typeof TOOL_OUTCOMES, args: Args): Promise<unknown> =>
    resultOutcome(await client.callTool({ name, arguments: args }));
  const demo: Demo = {
    client,
    instance,
    jq,
    call,
    runCommand: async (name, args) => TOOL_OUTCOMES[name].parse(await call(name, args)),
    check: (title, ok, why) => {
      steps.push({ title, ok, ...(ok ? {} : { why }) });
      out(`${ok ? green('  ✓') : red('  ✗')} ${ok ? 'as expected' : `NOT as expected: ${why}`}`);
    },
    show: (label, value) => out(dim(`    ${label}: ${JSON.stringify(value)}`)),
  };

  out(bold('harness demo: a real MCP client talking to harness serve over stdio'));
  out(dim(`  instance ${instance}`));
  if (!jq)
    out(
      dim(
        '  jq is not installed: the json-tools pack is left out, so the jq steps run over the fallback packs repo, echo and notes (install jq to see json-tools)',
      ),
    );
  try {
    const starting = spinner('starting harness serve');
    try {
      await client.connect(transport);
    } finally {
      starting.stop();
    }
    for (const step of STEPS) await step(demo);
  } catch (error) {
    steps.push({ title: 'demo', ok: false, why: (error as Error).message });
    out(red(`  ✗ the demo stopped: ${(error as Error).message}`));
  } finally {
    await client.close().catch(() => {});
    if (!values.keep) rmSync(root, { recursive: true, force: true });
  }
  const failed = steps.filter((s) => !s.ok);
  if (failed.length > 0 && serveLog.trim() !== '') {
    out(dim('\nharness serve said:'));
    for (const line of serveLog.trim().split('\n').slice(-20)) out(dim(`  ${line}`));
  }
  out('');
  out(
    failed.length === 0
      ? green(`demo passed: ${STEPS.length} steps behaved as expected`)
      : red(`demo FAILED: ${failed.map((s) => s.title).join(', ')}`),
  );
  return failed.length === 0 ? 0 : 1;
}

/**
 * The environment serve gets in the demo: PATH, HOME, no colour, and the XDG folders the person set,
 * so the instance's recorded audit key goes where their other instances' keys go.
 */
function demoEnv(root: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? root,
    NO_COLOR: '1',
  };
  for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR']) {
    const value = process.env[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  return env;
}
