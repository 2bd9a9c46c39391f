import { describe, expect, it } from 'vitest';

describe('public surface', () => {
  it('pins the root export list', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'AUTHORING_CONFIG_ENV',
        'BatchReply',
        'CallReply',
        'RunCommandReply',
        'callToolReply',
        'COMMANDS_CONFIG_ENV',
        'CommandsError',
        'CommandsErrorCode',
        'DeliveryCode',
        'EntryStatus',
        'LIMITS',
        'Landed',
        'OutcomeStatus',
        'QUEUE_PATH_DEPRECATION',
        'RefusalCode',
        'TOOL_OUTCOMES',
        'ToolOutcome',
        'checkPatternHandle',
        'createHostClient',
        'createHostCommandTools',
        'createLocalPatternResolver',
        'createLoomAuthoringTools',
        'createRun',
        'directSessionRunId',
        'failedToDeliver',
        'parseAuthoringConfig',
        'parseCommandsConfig',
        'readAuthoringConfig',
        'readCommandsConfig',
        'readFabricBinding',
        'resolveConfigPath',
        'resolvePatternToken',
        'isErrorResult',
        'resultText',
        'runArtifacts',
        'toFunctionTools',
        'toolsForCommentThread',
      ].sort(),
    );
  });

  it('pins the mcp subpath export list', async () => {
    expect(Object.keys(await import('../src/mcp')).sort()).toEqual([
      'OUTCOME_META_KEY',
      'PROGRESS_META_KEY',
      'mcpCallResult',
      'mcpProgressParams',
      'mcpTextMeta',
      'registerMcpTools',
      'resultOutcome',
      'toolOutputSchema',
    ]);
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
