import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PackRunResult, PackSet, PacksLoadResult, Tier } from '../src/index';
import { loadPacks, runPackCommand } from '../src/index';

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
      'allCommandIds',
      'credentialMarker',
      'credentialsFrom',
      'describeStandardPacks',
      'formatIssue',
      'getCommand',
      'getPack',
      'inputsSchema',
      'listCommands',
      'loadPacks',
      'previewPackCall',
      'readGitIdentity',
      'redactDeep',
      'renderPackCommand',
      'runCommandPreview',
      'runPackCommand',
      'unavailableFor',
    ]);
  });

  it('exports exactly these names from ./loader, what a file that embeds packs composes its load from', async () => {
    expect(Object.keys(await import('../src/loader')).sort()).toEqual([
      'PACK_EXAMPLES',
      'approvalWaitMs',
      'approvalWaitSchema',
      'buildPackList',
      'checkPackEnv',
      'checkSource',
      'commandPacksSchema',
      'durationSchema',
      'labelSchema',
      'listForMessage',
      'loadWalls',
      'offerPacks',
      'packSchema',
      'packsIssue',
      'readSource',
      'resolveSandbox',
      'sandboxSchema',
      'scopeSchema',
      'sizeSchema',
      'sortIssues',
      'standardEntrySchema',
      'tierSchema',
      'unknownCommandMessage',
      'within',
    ]);
  });

  it('has these entries and no ./internal one: what config loaders share is in @harness/config', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(['.', './loader', './standard/*', './package.json']);
  });

  it('pins the main signatures', () => {
    expectTypeOf(loadPacks).returns.resolves.toEqualTypeOf<PacksLoadResult>();
    expectTypeOf(runPackCommand).parameter(0).toEqualTypeOf<PackSet>();
    expectTypeOf(runPackCommand).returns.resolves.toEqualTypeOf<PackRunResult>();
    expectTypeOf<PackSet['packs'][number]['permission']>().toEqualTypeOf<Tier>();
  });
});
