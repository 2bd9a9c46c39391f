// The bytes a model reads of each way a call can end, pinned: `harness serve` over stdio with the
// real MCP SDK client, one call per case of fixtures/model-bytes/workspace.yaml (and the Loom
// tools), each result's text, `structuredContent` and `isError` compared with the committed
// snapshot fixtures/model-bytes/results.json. What differs from one run to the next (the temp
// directory, approval and loom ids, timestamps, the time a call waited) is replaced by a
// placeholder first. A change to how an answer travels must leave this file as it is.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDir, connectStdio, runCli, sandbox } from './helpers';

const fixture = join(appDir, 'test', 'fixtures', 'model-bytes');
const box = sandbox();
let conn: Awaited<ReturnType<typeof connectStdio>>;

beforeAll(async () => {
  conn = await connectStdio(
    ['--instance', box.instance, '--workspace', join(fixture, 'workspace.yaml')],
    box.home,
  );
});
afterAll(async () => {
  await conn?.close();
  box.cleanup();
});

/** What a model reads of one result. */
interface Read {
  text: string;
  structuredContent: unknown;
  isError: boolean;
}

/** Calls one tool and keeps what a model reads of its result. */
async function call(name: string, args: Record<string, unknown>): Promise<Read> {
  const res = await conn.client.callTool({ name, arguments: args });
  const content = res.content as { type: string; text?: string }[];
  return {
    text: content.map((c) => c.text ?? '').join('\n'),
    structuredContent: res.structuredContent,
    isError: res.isError === true,
  };
}

/** The approval id a held call's reply names. */
const approvalOf = (read: Read): string => (read.structuredContent as { approval: string }).approval;

// Each run's own values, replaced by a placeholder so the snapshot holds only what every run shares.
// An id is numbered in the order it first appears, so the snapshot still says which ids are the same.
const IDS: [RegExp, string][] = [
  [/apr-[A-Za-z0-9_-]+/g, 'approval'],
  [/loom-[0-9a-f-]{8,}/g, 'loom'],
  [/cmp-[0-9a-f]{16}/g, 'component'],
  [/op-[0-9a-f]{16}/g, 'operation'],
];
const VALUES: [RegExp, string][] = [
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'],
  [/waited \d+\.\ds/g, 'waited <seconds>'],
  [/person:[A-Za-z0-9_.-]+/g, 'person:<user>'],
];

/** The corpus as JSON with every varying value replaced. */
function steady(corpus: Record<string, Read>): string {
  let text = JSON.stringify(corpus, null, 2).replaceAll(box.root, '<root>');
  for (const [pattern, name] of IDS) {
    const numbers = new Map<string, number>();
    text = text.replace(pattern, (id) => {
      if (!numbers.has(id)) numbers.set(id, numbers.size + 1);
      return `<${name}-${numbers.get(id)}>`;
    });
  }
  for (const [pattern, placeholder] of VALUES) text = text.replace(pattern, placeholder);
  return `${text}\n`;
}

describe('what a model reads of each way a call ends', () => {
  it('stays byte for byte what the committed corpus holds', async () => {
    const reads: Record<string, Read> = {};
    const record = async (name: string, tool: string, args: Record<string, unknown>): Promise<Read> => {
      const read = await call(tool, args);
      reads[name] = read;
      return read;
    };
    const run = (command: string, args: Record<string, unknown> = {}) => ({ command, args });

    await record('ok json', 'run_command', run('echo.argv', { value: 'a "quoted" $(value)' }));
    await record('ok text and stderr', 'run_command', run('echo.text', { value: 'hello' }));
    await record('ok lines', 'run_command', run('echo.lines'));
    await record('ok read', 'run_read_command', run('echo.argv', { value: 'read' }));
    await record('exit non-zero', 'run_command', run('fail.exit'));
    await record('exit non-zero without output', 'run_command', run('fail.quiet'));
    await record('timed out', 'run_command', run('slow.sleep'));
    await record('output exceeded', 'run_command', run('loud.shout'));
    await record('parse failed', 'run_command', run('fail.json'));
    await record('render refused', 'run_command', run('echo.flag', { value: '--rf' }));
    await record('governance refused', 'run_command', run('frozen.melt'));
    await record('unknown command', 'run_command', run('echo.argx'));
    await record('bad arguments', 'run_command', run('echo.argv', { value: 5 }));
    await record('invalid input: empty batch', 'run_command', { calls: [] });
    await record('invalid input: no command', 'run_command', {});
    await record('read of a write', 'run_read_command', run('vault.sign', { line: 'x' }));

    const held = await record('held for approval', 'run_command', run('vault.sign', { line: 'yes' }));
    const approve = await runCli(['approvals', 'approve', approvalOf(held), '--instance', box.instance], {
      home: box.home,
    });
    expect(approve.code).toBe(0);
    await record('approved, then run', 'run_command', run('vault.sign', { line: 'yes' }));
    const burn = await record('held, to be denied', 'run_command', run('vault.burn', { line: 'no' }));
    const deny = await runCli(['approvals', 'deny', approvalOf(burn), '--instance', box.instance], {
      home: box.home,
    });
    expect(deny.code).toBe(0);
    await record('denied', 'run_command', run('vault.burn', { line: 'no' }));
    await record('held after a wait', 'run_command', run('brief.write', { line: 'later' }));

    await record('batch', 'run_command', {
      calls: [
        run('echo.argv', { value: 'first' }),
        run('nope.missing'),
        run('fail.exit'),
        run('vault.sign', { line: 'batched' }),
        run('echo.argv', { value: 5 }),
      ],
    });

    const compose = {
      request_id: 'req-model-bytes',
      components: [{ ref: 'page:one', title: 'One', stage: 'main', focus: true }, { ref: 'url:https://x' }],
    };
    const composed = await record('loom composed', 'loom_compose', compose);
    const loomId = (composed.structuredContent as { receipt: { loom_id: string } }).receipt.loom_id;
    await record('loom replayed', 'loom_compose', compose);
    await record('loom request conflict', 'loom_compose', { ...compose, components: [{ ref: 'page:two' }] });
    await record('loom inspected', 'loom_inspect', { loom_id: loomId });
    await record('loom not found', 'loom_inspect', { loom_id: 'loom-nope' });
    await record('loom authoring context', 'loom_authoring_context', {});
    await record('loom.inspect through run_command', 'run_command', {
      command: 'loom.inspect',
      args: { loom_id: loomId },
    });
    await record('loom.inspect not found through run_command', 'run_command', {
      command: 'loom.inspect',
      args: { loom_id: 'loom-nope' },
    });
    await record('loom.compose version conflict through run_command', 'run_command', {
      command: 'loom.compose',
      args: {
        request_id: 'req-stale',
        loom_id: loomId,
        expected_version: 9,
        components: [{ ref: 'page:z' }],
      },
    });
    await record('loom.authoring-context through run_command', 'run_command', {
      command: 'loom.authoring-context',
      args: {},
    });

    // Last, so the output ids of the cases above stay as the corpus has them.
    await record('tests failed', 'run_command', run('fail.tests'));

    await expect(steady(reads)).toMatchFileSnapshot(join(fixture, 'results.json'));
  });
});
