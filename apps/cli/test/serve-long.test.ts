// Long commands through `harness serve` (docs/cli.md, `harness serve`: long calls, progress,
// cancellation), driven by the real MCP SDK client over stdio on the embedded default: a call that
// runs past the client's old fixed 120 s wait returns its answer, with progress notifications on
// the way, and a cancelled call leaves no process behind and is audited `cancelled`. The two run
// side by side on one connection.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processesWith, until } from '@harness/test-utils';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, get, loomBin, sandbox, structured } from './helpers';

// `long.ticks` is `sleep <seconds>` that prints a line every second (so its output grows while it
// runs) and `done` at the end; `marker` only tags its argv, so the test can find it in /proc.
const TICKS = [
  'const seconds = Number(process.argv[1]);',
  'let n = 0;',
  "const tick = setInterval(() => process.stdout.write('tick ' + ++n + '\\n'), 1000);",
  "setTimeout(() => { clearInterval(tick); process.stdout.write('done\\n'); }, seconds * 1000);",
].join(' ');

const WORKSPACE = `version: 1
command_packs:
  - id: long
    description: A command that runs for minutes, as a build or a test suite does.
    timeout: 6m
    commands:
      - id: ticks
        description: Print a line every second for some seconds, then done.
        argv: [node, -e, ${JSON.stringify(TICKS)}, --, '{{seconds}}', '{{marker}}']
        inputs:
          seconds: { type: integer, minimum: 1, maximum: 300, description: How long to run }
          marker: { type: string, description: A tag for the test to find the process by }
        effects: read
agents:
  - id: demo
    grants: [pack:long]
`;

// Five minutes: a build or test suite's length, well past the 120 s a client used to wait for every
// call. The command sleeps, so the test costs wall time in one worker, not CPU.
const SECONDS = 300;
const OLD_WAIT_MS = 120_000;

type Progress = {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
  _meta?: Record<string, unknown> | undefined;
};
const figures = (p: Progress) =>
  p._meta?.['harness.dev/progress'] as { elapsedMs: number; outputBytes: number } | undefined;

const box = sandbox();
let conn: Awaited<ReturnType<typeof connectStdio>>;

beforeAll(async () => {
  mkdirSync(box.root, { recursive: true });
  const workspace = join(box.root, 'long.yaml');
  writeFileSync(workspace, WORKSPACE);
  conn = await connectStdio(['--instance', box.instance, '--workspace', workspace], box.home);
});
afterAll(async () => {
  await conn?.close();
  box.cleanup();
});

/** The audit rows of the embedded instance, as `loom audit tail --json` prints them. */
function auditRows(): Record<string, unknown>[] {
  const text = execFileSync(
    process.execPath,
    [loomBin, 'audit', 'tail', '--json', '-n', '50', '--instance', box.instance],
    { encoding: 'utf8' },
  );
  return (JSON.parse(text) as { events: Record<string, unknown>[] }).events;
}

describe.concurrent('harness serve with long commands', () => {
  it(`a ${SECONDS} s command in a pack with timeout: 6m returns its answer past the old 120 s wait, with progress on the way: elapsed increasing, output bytes counted`, async () => {
    const seen: Progress[] = [];
    const started = Date.now();
    // The SDK client's own request timeout (60 s) is reset by each notification: progress is what
    // keeps an ordinary MCP client waiting for a long call.
    const res = await conn.client.callTool(
      {
        name: 'run_read_command',
        arguments: { command: 'long.ticks', args: { seconds: SECONDS, marker: `long-${process.pid}` } },
      },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true },
    );
    const took = Date.now() - started;
    const value = structured(res);
    expect(value.status).toBe('executed');
    expect(get(value, 'outcome', 'ok')).toBe(true);
    const output = get(value, 'entry', 'value', 'output') as string;
    expect(output).toMatch(/^tick 1\ntick 2\n/);
    expect(output.endsWith('done\n')).toBe(true);
    expect(took).toBeGreaterThan(OLD_WAIT_MS);

    // Every notification's progress increases, the heartbeat's and the broker's alike.
    const numbers = seen.map((p) => p.progress);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    // The heartbeat speaks first; the broker's reports (every 2 s after the first 2 s) replace it.
    expect(seen[0]?.message).toMatch(/^run_read_command still running \(\d+\.\ds\)$/);
    const reports = seen.filter((p) => figures(p) !== undefined);
    expect(reports.length).toBeGreaterThan(SECONDS / 2 - 10);
    const elapsed = reports.map((p) => figures(p)?.elapsedMs ?? 0);
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b));
    expect(new Set(elapsed).size).toBe(elapsed.length);
    expect(elapsed[0]).toBeGreaterThanOrEqual(2_000);
    expect(elapsed.at(-1)).toBeGreaterThan(OLD_WAIT_MS);
    const bytes = reports.map((p) => figures(p)?.outputBytes ?? 0);
    expect(bytes).toEqual([...bytes].sort((a, b) => a - b));
    // Counted as the command prints: "tick 100\n" is among the bytes by the time 110 s have passed.
    const at110 = reports.find((p) => (figures(p)?.elapsedMs ?? 0) >= 110_000);
    expect(figures(at110 as Progress)?.outputBytes).toBeGreaterThanOrEqual(
      Buffer.byteLength(output.slice(0, output.indexOf('tick 101\n'))),
    );
    expect(bytes.at(-1)).toBeLessThanOrEqual(Buffer.byteLength(output));
    expect(reports.at(-1)?.message).toMatch(/^long\.ticks running for \d+\.\ds, \d+ bytes of output so far$/);
  }, 420_000);

  it('a cancelled call leaves no process behind, and its audit row says cancelled', async () => {
    const marker = `cancel-${process.pid}`;
    const controller = new AbortController();
    const pending = conn.client.callTool(
      { name: 'run_read_command', arguments: { command: 'long.ticks', args: { seconds: 280, marker } } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    // Running once its process exists (the command, and the sandbox around it when reads are confined).
    await until(() => processesWith(marker).length > 0, `a process carrying ${marker}`);
    controller.abort('the person pressed stop');
    await expect(pending).rejects.toThrow();
    await until(() => processesWith(marker).length === 0, `no process carrying ${marker}`);

    const cancelled = () =>
      auditRows().find(
        (e) =>
          e.command === 'long.ticks' &&
          e.phase === 'run' &&
          (get(e, 'payload', 'run', 'argv') as string[] | undefined)?.at(-1) === marker,
      );
    await until(() => cancelled() !== undefined, 'the run row of the cancelled call');
    expect(cancelled()).toMatchObject({ outcome: 'cancelled', code: 'failed', reason: 'cancelled' });
    expect(get(cancelled(), 'payload', 'run', 'status')).toBe('cancelled');
  }, 60_000);
});
