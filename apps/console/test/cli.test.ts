// The console's command line: flags, the Loom authoring configuration, the printed link.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { parseConsoleFlags, resolveConsoleOptions, runConsole } from '../src/index';
import { makeInstance } from './helpers/instance';

describe('harness console flags', () => {
  it('accepts --loom-authoring-config, checks it before listening and says it is in use [LA-03]', async () => {
    const t = await makeInstance();
    try {
      const config = join(t.root, 'authoring.json');
      writeFileSync(
        config,
        JSON.stringify({
          cliPath: join(repoRoot, 'apps', 'loom', 'bin', 'loom.js'),
          transport: { kind: 'direct', instanceDir: t.instanceDir, runId: 'console', actor: 'agent:console' },
        }),
      );
      const flags = parseConsoleFlags(['--listen', '127.0.0.1:0', '--loom-authoring-config', config]);
      const options = await resolveConsoleOptions(flags, t.instanceDir, {});
      expect(options.authoringConfig).toBe(config);
      const lines: string[] = [];
      const running = await runConsole(options, (line) => lines.push(line));
      try {
        expect(lines).toContain(`harness console: Loom authoring configuration ${config}`);
        expect(lines.find((l) => l.startsWith('harness console: open '))).toMatch(/\?token=/);
        expect(running.ctx.authoringConfig).toBe(config);
      } finally {
        await running.close();
      }
      // The environment variable names it too; the flag wins over it.
      const fromEnv = await resolveConsoleOptions(parseConsoleFlags([]), t.instanceDir, {
        CF_HARNESS_LOOM_AUTHORING_CONFIG: config,
      });
      expect(fromEnv.authoringConfig).toBe(config);
      // A relative path, or a file that is not a configuration, is refused before anything listens.
      await expect(
        resolveConsoleOptions(
          parseConsoleFlags(['--loom-authoring-config', 'authoring.json']),
          t.instanceDir,
          {},
        ),
      ).rejects.toMatchObject({
        code: 'authoring_config_invalid',
        message: expect.stringContaining('absolute'),
      });
      writeFileSync(join(t.root, 'bad.json'), '{"transport": 1}');
      await expect(
        resolveConsoleOptions(
          parseConsoleFlags(['--loom-authoring-config', join(t.root, 'bad.json')]),
          t.instanceDir,
          {},
        ),
      ).rejects.toMatchObject({ code: 'authoring_config_invalid' });
    } finally {
      t.cleanup();
    }
  });

  it('refuses an unknown flag and a malformed --listen with what to pass instead', async () => {
    expect(() => parseConsoleFlags(['--port', '80'])).toThrow(/--port[\s\S]*--help/);
    const t = await makeInstance();
    try {
      const options = await resolveConsoleOptions(
        parseConsoleFlags(['--listen', 'localhost']),
        t.instanceDir,
        {},
      );
      const { startConsole } = await import('../src/index');
      await expect(startConsole(options)).rejects.toMatchObject({
        code: 'listen_invalid',
        message: expect.stringContaining('host:port'),
      });
    } finally {
      t.cleanup();
    }
  });
});
