// runner-spawn: planning and spawning a `command` harness that runs `true` (plan, run record, exec,
// log file) against @harness/exec running `true` directly, in the same run (target at most 1.5).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare } from '@harness/bench-utils';
import { run } from '@harness/exec';
import { loadRunnerConfig } from '../src/load';
import { Supervisor } from '../src/supervisor';

const dir = mkdtempSync(join(tmpdir(), 'runner-bench-'));
const loaded = loadRunnerConfig({
  file: join(dir, 'runner.yaml'),
  text: 'harnesses: [{ id: t, kind: command, argv: [/bin/true, "{{run.id}}"] }]\n',
});
if (!loaded.ok) throw new Error('config');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const supervisor = new Supervisor(loaded.config, { instanceDir: dir, env, log: () => undefined });

await compare({
  name: 'runner-spawn',
  subject: {
    label: "Supervisor.runNow('t'): plan, record, spawn /bin/true, record",
    fn: async () => {
      const r = await supervisor.runNow('t');
      if (r.status !== 'succeeded') throw new Error(r.message ?? 'failed');
    },
  },
  anchor: {
    label: "exec run({ argv: ['/bin/true', 'x'] })",
    fn: async () => {
      const r = await run({ argv: ['/bin/true', 'x'], env, cwd: dir });
      if (!r.ok) throw new Error('failed');
    },
  },
  rounds: 20,
  inner: 5,
  warmup: 2,
  target: 1.5,
  notes:
    'Both spawn /bin/true through @harness/exec; the subject adds planning, two SQLite writes and the log file.',
});
await supervisor.stop();
rmSync(dir, { recursive: true, force: true });
