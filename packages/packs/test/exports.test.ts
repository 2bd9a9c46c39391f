import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Decision, LoadResult, PackRunResult, Tier, Workspace } from '../src/index';
import { decide, loadWorkspace, runPackCommand } from '../src/index';

describe('public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'DEFAULT_APPROVAL_TIMEOUT_MS',
      'DEFAULT_MAX_OUTPUT_BYTES',
      'DEFAULT_TIMEOUT_MS',
      'PROBE_TIMEOUT_MS',
      'PacksError',
      'PacksErrorCode',
      'REDACTED',
      'RESERVED_PACK_IDS',
      'STANDARD_PACKS',
      'TIERS',
      'actionLabel',
      'approvalKey',
      'auditEvent',
      'createMemoryApprovalStore',
      'credentialMarker',
      'credentialsFrom',
      'decide',
      'describeStandardPacks',
      'formatIssue',
      'getCommand',
      'inputsSchema',
      'listCommands',
      'loadWorkspace',
      'previewPackCall',
      'renderPackCommand',
      'resolveGrants',
      'runPackCommand',
      'workspaceJsonSchema',
      'workspaceSchema',
    ]);
  });

  it('has these entries and no ./internal one: what config loaders share is in @harness/config', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual([
      '.',
      './workspace.schema.json',
      './standard/*',
      './package.json',
    ]);
  });

  it('pins the main signatures', () => {
    expectTypeOf(loadWorkspace).returns.resolves.toEqualTypeOf<LoadResult>();
    expectTypeOf(decide).parameter(0).toEqualTypeOf<Workspace>();
    expectTypeOf(decide).returns.toEqualTypeOf<Decision>();
    expectTypeOf(runPackCommand).returns.resolves.toEqualTypeOf<PackRunResult>();
    expectTypeOf<Decision['tier']>().toEqualTypeOf<Tier | undefined>();
  });
});
