// Every published package (packages/* and apps/* but the private ones) has a complete manifest, a
// LICENSE identical to the root one, and a tarball (`npm pack --dry-run`, after the build: turbo
// runs every package's build before this test) holding its README, LICENSE, types, export and bin
// targets and no tests. docs/contributing.md, "Releases". Each check is first shown to catch what
// it forbids, on a manifest and a file list written for the purpose.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import {
  LICENSE_ID,
  type Manifest,
  manifestProblems,
  packedFiles,
  publishedPackages,
  REPOSITORY_URL,
  tarballProblems,
} from '../src/packages';

const library: Manifest = {
  name: '@harness/x',
  version: '0.1.0',
  description: 'A package.',
  license: LICENSE_ID,
  repository: { type: 'git', url: REPOSITORY_URL, directory: 'packages/x' },
  files: ['dist', 'README.md', 'LICENSE'],
  engines: { node: '>=20' },
  types: './dist/index.d.ts',
  exports: {
    '.': { '@harness/source': './src/index.ts', types: './dist/index.d.ts', import: './dist/index.js' },
    './standard/*': './standard/*',
    './package.json': './package.json',
  },
};
const cli: Manifest = {
  ...library,
  types: undefined,
  bin: { x: './bin/x.js' },
  exports: { './package.json': './package.json' },
};
const shipped = [
  'LICENSE',
  'README.md',
  'package.json',
  'dist/index.d.ts',
  'dist/index.js',
  'standard/git.yaml',
  'bin/x.js',
];

describe('the package checks', () => {
  it('pass a complete library manifest and a CLI one', () => {
    expect(manifestProblems('packages/x', library)).toEqual([]);
    expect(manifestProblems('packages/x', cli)).toEqual([]);
    expect(tarballProblems(library, shipped)).toEqual([]);
    expect(tarballProblems(cli, shipped)).toEqual([]);
  });

  it('name each field a manifest lacks or gets wrong', () => {
    const { license: _l, repository: _r, engines: _e, types: _t, description: _d, ...bare } = library;
    expect(manifestProblems('packages/x', bare)).toEqual([
      'no description',
      'license is undefined, not "Apache-2.0"',
      `repository is undefined, not { type: "git", url: "${REPOSITORY_URL}", directory: "packages/x" }`,
      'no engines.node',
      'types is undefined, not the "." export\'s "./dist/index.d.ts"',
    ]);
    expect(manifestProblems('packages/y', { ...library, files: ['dist'] })).toEqual([
      expect.stringContaining('directory: "packages/y"'),
      'files does not list README.md',
      'files does not list LICENSE',
    ]);
    expect(manifestProblems('packages/x', { ...cli, bin: undefined, exports: undefined })).toEqual([
      'no exports map',
    ]);
    expect(manifestProblems('packages/x', { ...cli, bin: undefined })).toEqual([
      'neither a "." export (with types) nor a bin',
    ]);
  });

  it('name each file a tarball lacks, and each test or source file it holds', () => {
    const without = (gone: string) => shipped.filter((f) => f !== gone);
    expect(tarballProblems(library, without('LICENSE'))).toEqual(['the tarball lacks LICENSE']);
    expect(tarballProblems(library, without('README.md'))).toEqual(['the tarball lacks README.md']);
    expect(tarballProblems(library, without('dist/index.d.ts'))).toEqual([
      'the tarball lacks dist/index.d.ts',
    ]);
    expect(tarballProblems(library, without('standard/git.yaml'))).toEqual(['the tarball lacks standard/*']);
    expect(tarballProblems(cli, without('bin/x.js'))).toEqual(['the tarball lacks bin/x.js']);
    expect(
      tarballProblems(library, [...shipped, 'dist/test/a.js', 'dist/run.test.js', 'src/index.ts']),
    ).toEqual([
      'the tarball holds dist/test/a.js',
      'the tarball holds dist/run.test.js',
      'the tarball holds src/index.ts',
    ]);
  });
});

describe('the published packages', () => {
  const published = publishedPackages(repoRoot);
  const rootLicense = readFileSync(join(repoRoot, 'LICENSE'));

  it('are found (the checks are not vacuous)', () => {
    expect(published.map((p) => p.manifest.name)).toEqual(
      expect.arrayContaining([
        '@harness/cli',
        '@harness/tmpl',
        '@harness/signature',
        '@harness/ifc',
        '@harness/exec',
      ]),
    );
    expect(published.length).toBeGreaterThanOrEqual(18);
  });

  it('share the root LICENSE: the Apache License 2.0, copyright harness-commands contributors', () => {
    const text = rootLicense.toString('utf8');
    expect(text).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(text).toContain('Copyright 2026 harness-commands contributors');
  });

  it('are covered by SECURITY.md: how to report, what we promise, the versions, the threat model', () => {
    const policy = readFileSync(join(repoRoot, 'SECURITY.md'), 'utf8');
    for (const heading of [
      '## Reporting a vulnerability',
      '## What we promise',
      '## Supported versions',
      '## Scope',
    ]) {
      expect(policy).toContain(`\n${heading}\n`);
    }
    expect(policy).toContain('/security/advisories/new');
    expect(policy).toContain('(docs/security.md#threat-model)');
  });

  it.each(published.map((p) => [p.manifest.name, p] as const))(
    '%s has a complete manifest and a LICENSE identical to the root one',
    (_name, { dir, manifest }) => {
      expect(manifestProblems(dir, manifest)).toEqual([]);
      const copy = join(repoRoot, dir, 'LICENSE');
      expect(existsSync(copy), `${dir}/LICENSE is missing`).toBe(true);
      expect(readFileSync(copy).equals(rootLicense), `${dir}/LICENSE differs from the root LICENSE`).toBe(
        true,
      );
    },
  );

  it.each(published.map((p) => [p.manifest.name, p] as const))(
    '%s packs its README, LICENSE, types and export targets, and no tests',
    async (_name, { dir, manifest }) => {
      const built = join(repoRoot, dir, 'dist');
      expect(existsSync(built), `${dir}/dist is missing: build first (pnpm build)`).toBe(true);
      const files = await packedFiles(join(repoRoot, dir));
      expect(tarballProblems(manifest, files)).toEqual([]);
    },
    60_000,
  );
});
