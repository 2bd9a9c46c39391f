import { describe, expect, it } from 'vitest';

describe('public surface', () => {
  it('pins the root export list', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'ALLOWLISTED_REFUSALS',
        'AUTHORING_CONFIG_ENV',
        'BROKER_PROTOCOL',
        'COMMANDS_CONFIG_ENV',
        'CommandsError',
        'CommandsErrorCode',
        'LIMITS',
        'LIST_NOTICE',
        'LOOM_TOOL_NAMES',
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
        'hostEnvironment',
        'parseAuthoringConfig',
        'parseCommandsConfig',
        'readAuthoringConfig',
        'readCatalog',
        'readCommandsConfig',
        'readFabricBinding',
        'resolveConfigPath',
        'resolvePatternToken',
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
});
