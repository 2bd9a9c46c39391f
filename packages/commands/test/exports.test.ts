import { describe, expect, it } from 'vitest';

describe('public surface', () => {
  it('pins the root export list', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'ALLOWLISTED_REFUSALS',
        'AUTHORING_CONFIG_ENV',
        'COMMANDS_CONFIG_ENV',
        'CommandsError',
        'CommandsErrorCode',
        'LIMITS',
        'LIST_NOTICE',
        'LOOM_ID',
        'LOOM_TOOL_NAMES',
        'QUEUE_PATH_DEPRECATION',
        'REF_PREFIXES',
        'checkPatternHandle',
        'createCliHostClient',
        'createHostClient',
        'createHostCommandTools',
        'createLocalPatternResolver',
        'createLoomAuthoringTools',
        'createRun',
        'createSocketHostClient',
        'directSessionRunId',
        'hiddenReason',
        'parseAuthoringConfig',
        'parseCommandsConfig',
        'readAuthoringConfig',
        'readCatalog',
        'readCommandsConfig',
        'readFabricBinding',
        'resolveConfigPath',
        'resolvePatternToken',
        'isErrorResult',
        'resultText',
        'runArtifacts',
        'suggest',
        'toFunctionTools',
        'toolsForCommentThread',
      ].sort(),
    );
  });

  it('pins the mcp subpath export list', async () => {
    expect(Object.keys(await import('../src/mcp')).sort()).toEqual(['registerMcpTools']);
  });

  it('reaches hosts only through the protocol: no dependency on the host side', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(Object.keys(pkg.dependencies)).not.toContain('@harness/host');
    expect(Object.keys(pkg.dependencies)).not.toContain('@harness/packs');
    const src = new URL('../src/', import.meta.url);
    for (const file of readdirSync(src, { recursive: true }) as string[]) {
      if (!file.endsWith('.ts')) continue;
      expect(readFileSync(new URL(file, src), 'utf8'), file).not.toMatch(/from '@harness\/(host|packs)/);
    }
  });
});
