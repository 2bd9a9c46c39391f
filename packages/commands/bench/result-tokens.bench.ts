// commands-result-tokens: o200k tokens of the text a model reads for typical run_command results,
// the text content now (the command's output and one status line, resultText) against the text
// content before (the whole result as JSON), on the same results in the same run. The results come
// from the real host (apps/loom/dist/loom.js) running real commands. Target: ratio ≤ 0.6.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeResult } from '@harness/bench-utils';
import { createHostCommandTools, createRun, resultText, type ToolResult } from '@harness/commands';
import { repoRoot, tempDir } from '@harness/test-utils';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { LOOM_JS, realHostMissing } from '../test/helpers/real-host';

const WORKSPACE = `version: 1
command_packs:
  - id: repo
    cwd: ${JSON.stringify(repoRoot)}
    commands:
      - { id: log, argv: [git, log, --oneline, -n, "{{count}}"], inputs: { count: { type: integer } }, effects: read }
      - { id: ls, argv: [ls, --, "{{path}}"], effects: read }
      - { id: seq, argv: [seq, "{{n}}"], inputs: { n: { type: integer } }, effects: read }
      - { id: lines, argv: [seq, "{{n}}"], inputs: { n: { type: integer } }, effects: read, output: { parse: lines } }
      - { id: show, argv: [git, show, --stat, --oneline, HEAD], effects: read }
  - id: vault
    permission: readonly
    commands:
      - { id: tag, argv: [git, tag, --, "{{name}}"], effects: write }
  - id: notes
    permission: strict
    commands:
      - { id: append, argv: [sh, -c, 'true', --, "{{line}}"], effects: write }
agents:
  - id: me
    grants: [pack:repo, vault.tag, notes.append]
`;

const tokens = (text: string) => encode(text).length;

async function startBroker(dir: string): Promise<{ queuePath: string; stop: () => void }> {
  const workspace = join(dir, 'workspace.yaml');
  writeFileSync(workspace, WORKSPACE);
  const scope = join(dir, 'scope.yaml');
  writeFileSync(scope, 'run: bench\nagent: me\n');
  const instance = join(dir, 'inst');
  const init = spawnSync(process.execPath, [LOOM_JS, 'init', instance, '--workspace', workspace], {
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`loom init failed: ${init.stderr}`);
  const queuePath = join(dir, 'b.sock');
  const child = spawn(
    process.execPath,
    [LOOM_JS, 'broker', 'start', '--instance', instance, '--socket', queuePath, '--scope', scope],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"ready":true')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`broker exited ${code}`)));
  });
  return { queuePath, stop: () => child.kill('SIGTERM') };
}

const missing = realHostMissing();
if (missing) {
  process.stdout.write(`commands-result-tokens skipped: ${missing}\n`);
} else {
  const dir = tempDir('harness-result-tokens-');
  const broker = await startBroker(dir.path);
  try {
    const config = {
      cliPath: LOOM_JS,
      transport: { kind: 'broker' as const, socketPath: broker.queuePath, client: 'socket' as const },
    };
    const tool = createHostCommandTools({ config }).find((t) => t.name === 'run_command');
    if (!tool) throw new Error('no run_command');
    const run = createRun({ mode: 'disabled' });
    const call = (input: unknown) => tool.execute(input, { run }) as Promise<ToolResult>;
    // The five kinds of result the target is set on, one typical case each; then more cases, whose
    // ratios are reported beside it (a result that is mostly output saves little, by nature).
    const cases: [string, boolean, unknown][] = [
      ['ok: git log of two commits', true, { command: 'repo.log', args: { count: 2 } }],
      ['non-zero exit: ls of a missing path', true, { command: 'repo.ls', args: { path: 'no-such-file' } }],
      ['truncated: 20000 lines past the output bound', true, { command: 'repo.lines', args: { n: 20000 } }],
      ['refused: a write in a readonly pack', true, { command: 'vault.tag', args: { name: 'v1' } }],
      [
        'batch of 4',
        true,
        {
          calls: [
            { command: 'repo.log', args: { count: 1 } },
            { command: 'repo.ls', args: { path: 'README.md' } },
            { command: 'repo.seq', args: { n: 3 } },
            { command: 'repo.ls', args: { path: 'missing.txt' } },
          ],
        },
      ],
      [
        'approval required: a write in a strict pack',
        false,
        { command: 'notes.append', args: { line: 'hello' } },
      ],
      ['ok: git show --stat', false, { command: 'repo.show', args: {} }],
      ['ok: 108 KB of text, cut to 8 KiB in the answer', false, { command: 'repo.seq', args: { n: 20000 } }],
    ];
    const rows: {
      case: string;
      typical: boolean;
      before: number;
      after: number;
      ratio: number;
      text: string;
    }[] = [];
    for (const [label, typical, input] of cases) {
      const result = await call(input);
      const before = tokens(JSON.stringify(result));
      const after = tokens(resultText(result));
      rows.push({
        case: label,
        typical,
        before,
        after,
        ratio: after / before,
        text: resultText(result).slice(0, 2000),
      });
    }
    const total = (subset: typeof rows, k: 'before' | 'after') => subset.reduce((n, r) => n + r[k], 0);
    const typical = rows.filter((r) => r.typical);
    const before = total(typical, 'before');
    const after = total(typical, 'after');
    const ratio = after / before;
    writeResult('commands-result-tokens', {
      unit: 'o200k tokens of the MCP text content of one tool result',
      subject: { label: 'resultText: the output, then one status line', total: after },
      anchor: { label: 'the whole result as JSON (the text content before)', total: before },
      ratio,
      target: {
        ratioAtMost: 0.6,
        over: 'the five typical cases: ok, non-zero exit, truncated, refused, batch of 4',
      },
      pass: ratio <= 0.6,
      allCases: {
        before: total(rows, 'before'),
        after: total(rows, 'after'),
        ratio: total(rows, 'after') / total(rows, 'before'),
      },
      cases: rows,
      notes:
        "Same results, real host, real commands. This measures the text content; a call tool's structuredContent is its lean reply (call-reply.ts), measured per client in tooling/agent-clis.",
    });
    process.stdout.write(`commands-result-tokens: ${after} / ${before} tokens = ${ratio.toFixed(3)}\n`);
  } finally {
    broker.stop();
    dir.cleanup();
  }
}
