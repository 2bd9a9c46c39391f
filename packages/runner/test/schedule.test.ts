// Schedules (croner) and resident harnesses under the real supervisor.
import { tempDir, until } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { Supervisor } from '../src/supervisor';
import { fakeAgents, mustLoad } from './helpers';

describe('schedules and resident harnesses', () => {
  it('runs a scheduled harness on its cron expression, without a shell [TM-84]', async () => {
    const fakes = fakeAgents();
    const instance = tempDir('runner-instance-');
    const config = mustLoad({
      harnesses: [
        {
          id: 'tick',
          kind: 'command',
          schedule: '* * * * * *',
          workdir: fakes.dir,
          env: { FAKE_RECORD_DIR: fakes.records },
          argv: [`${fakes.bin}/record`, '{{run.trigger}}', '$HOME'],
        },
      ],
    });
    const s = new Supervisor(config, {
      instanceDir: instance.path,
      env: { PATH: fakes.path },
      log: () => undefined,
    });
    await s.start();
    await until(
      () => s.store.list().some((r) => r.status === 'succeeded'),
      'a succeeded scheduled run',
      10_000,
    );
    await s.stop();
    const run = new Supervisor(config, { instanceDir: instance.path, env: {}, log: () => undefined });
    const done = run.store.list().find((r) => r.status === 'succeeded');
    expect(done).toMatchObject({
      harness: 'tick',
      trigger: 'schedule',
      exit_code: 0,
      source: null,
      delivery: null,
      prompt_delivery: 'none',
    });
    expect(fakes.read(done?.id as string).argv).toEqual(['schedule', '$HOME']);
    run.store.close();
    fakes.cleanup();
    instance.cleanup();
  });

  it('keeps a resident generic one-liner running, starting it again after it exits [TM-106]', async () => {
    const instance = tempDir('runner-instance-');
    const config = mustLoad({
      harnesses: [
        { id: 'loop', kind: 'generic', resident: true, shell: 'echo alive', workdir: instance.path },
      ],
    });
    const s = new Supervisor(config, {
      instanceDir: instance.path,
      env: { PATH: '/usr/bin:/bin' },
      residentRestartMs: 50,
      log: () => undefined,
    });
    await s.start();
    await until(
      () => s.store.list().filter((r) => r.status === 'succeeded').length >= 2,
      'two succeeded runs of the resident harness',
      10_000,
    );
    const runs = s.store.list();
    await s.stop();
    expect(runs[0]).toMatchObject({
      harness: 'loop',
      trigger: 'resident',
      status: 'succeeded',
      prompt_delivery: 'none',
      source: null,
      delivery: null,
    });
    instance.cleanup();
  });
});
