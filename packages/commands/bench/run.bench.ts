// commands-run-socket / commands-run-cli: run_read_command of a trivial read command (the demo
// workspace's echo.argv) through each host client, against spawning that same command directly.
// Needs the real host (apps/loom/dist/loom.js); skips with a message when it is absent.
import { compare } from '@harness/bench-utils';
import { createHostClient, createHostCommandTools, createRun } from '@harness/commands';
import { run as execRun } from '@harness/exec';
import { LOOM_JS, realHostMissing, startRealBroker } from '../test/helpers/real-host';

const missing = realHostMissing();
if (missing) {
  process.stdout.write(`commands-run-socket / commands-run-cli skipped: ${missing}\n`);
} else {
  const broker = await startRealBroker('reader');
  const direct = () =>
    execRun({
      argv: [
        process.execPath,
        '-e',
        'process.stdout.write(JSON.stringify(process.argv.slice(1)))',
        '--',
        'hello',
      ],
      env: { PATH: process.env.PATH ?? '' },
    });
  try {
    for (const kind of ['socket', 'cli'] as const) {
      const config = {
        cliPath: LOOM_JS,
        transport: { kind: 'broker' as const, socketPath: broker.queuePath, client: kind },
      };
      const client = createHostClient(config);
      const tools = createHostCommandTools({ config, client });
      const readTool = tools.find((t) => t.name === 'run_command');
      if (!readTool) throw new Error('no run_command');
      const run = createRun({ mode: 'disabled' });
      const call = async () => {
        const r = (await readTool.execute({ command: 'echo.argv', args: { value: 'hello' } }, { run })) as {
          status: string;
        };
        if (r.status !== 'executed') throw new Error(`run_command failed: ${JSON.stringify(r)}`);
      };
      await compare({
        name: `commands-run-${kind}`,
        subject: { label: `run_command echo.argv through the ${kind} client and the real broker`, fn: call },
        anchor: { label: 'spawning the same node command directly (@harness/exec)', fn: direct },
        rounds: 15,
        target: kind === 'socket' ? 2 : undefined,
        notes:
          kind === 'cli'
            ? 'the seed path: one loom CLI process per call, then the broker spawns the command'
            : undefined,
      } as Parameters<typeof compare>[0]);
      await client.close();
    }
  } finally {
    await broker.stop();
  }
}
