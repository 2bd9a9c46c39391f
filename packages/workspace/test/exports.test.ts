import type { PackSet } from '@harness/packs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Decision, LoadResult, Workspace } from '../src/index';
import { decide, loadWorkspace } from '../src/index';

describe('public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'TIERS',
      'actionLabel',
      'approvalKey',
      'auditEvent',
      'createMemoryApprovalStore',
      'decide',
      'gatedOf',
      'loadWorkspace',
      'mapToolIds',
      'renderServerSecrets',
      'resolveGrants',
      'serverToolEffects',
      'serverToolTier',
      'toolMemberId',
      'workspaceJsonSchema',
      'workspaceSchema',
    ]);
  });

  it('has these entries: the root and the JSON Schema for editors', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(['.', './workspace.schema.json', './package.json']);
  });

  it('pins the main signatures: a workspace is the pack set every run of @harness/packs takes', () => {
    expectTypeOf(loadWorkspace).returns.resolves.toEqualTypeOf<LoadResult>();
    expectTypeOf(decide).parameter(0).toEqualTypeOf<Workspace>();
    expectTypeOf(decide).returns.toEqualTypeOf<Decision>();
    expectTypeOf<Workspace>().toExtend<PackSet>();
  });
});
