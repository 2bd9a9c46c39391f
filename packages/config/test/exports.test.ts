import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type DurationGrammar, parseByteSize, parseDuration } from '../src/index';
import { parseYamlConfig, type YamlConfigResult } from '../src/yaml';

const srcDir = join(import.meta.dirname, '..', 'src');
const importsOf = (file: string) =>
  [...readFileSync(join(srcDir, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);

describe('public API', () => {
  it('exports exactly the pinned names from the root', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'BYTE_SIZE_PATTERN',
      'DURATION',
      'ENV_NAME_PATTERN',
      'ID_PATTERN',
      'MAX_BYTE_SIZE',
      'MAX_DURATION_MS',
      'RETENTION_WINDOW',
      'SHORT_ID_PATTERN',
      'parseByteSize',
      'parseDuration',
      'utf8Length',
    ]);
  });

  it('exports exactly the pinned names from ./yaml, ./zod and ./instance', async () => {
    expect(Object.keys(await import('../src/yaml')).sort()).toEqual(['parseYamlConfig']);
    expect(Object.keys(await import('../src/zod')).sort()).toEqual(['id', 'strict']);
    expect(Object.keys(await import('../src/instance')).sort()).toEqual([
      'DEFAULT_INSTANCE_DIR',
      'approveCommand',
      'commandLine',
      'defaultInstanceDir',
      'instanceArgs',
      'instanceLocation',
      'instancesHome',
      'isDataDirInstance',
      'listApprovalsCommand',
      'projectInstance',
      'shellWord',
    ]);
  });

  it('has these entries', () => {
    const pkg = JSON.parse(readFileSync(join(srcDir, '..', 'package.json'), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(['.', './yaml', './zod', './instance', './package.json']);
  });

  it('has the documented types', () => {
    expectTypeOf(parseYamlConfig).returns.toEqualTypeOf<YamlConfigResult>();
    expectTypeOf(parseDuration).parameter(1).toEqualTypeOf<DurationGrammar | undefined>();
    expectTypeOf(parseDuration).returns.toEqualTypeOf<number | undefined>();
    expectTypeOf(parseByteSize).returns.toEqualTypeOf<number | undefined>();
  });
});

describe('a leaf', () => {
  it('depends on no package of ours, so every package can build on it without a cycle', () => {
    const pkg = JSON.parse(readFileSync(join(srcDir, '..', 'package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['yaml', 'zod']);
  });

  it('keeps the root free of imports: a flag parser or a browser bundle loads no parser library', () => {
    const root = readdirSync(srcDir)
      .filter((f) => f.endsWith('.ts') && !['yaml.ts', 'zod.ts', 'instance.ts'].includes(f))
      .flatMap(importsOf);
    expect(root.length).toBeGreaterThan(0);
    expect(root.filter((i) => !i?.startsWith('./'))).toEqual([]);
  });

  it('imports yaml only in ./yaml, zod only in ./zod, and Node-only modules only in ./instance', () => {
    expect(importsOf('yaml.ts')).toEqual(['yaml']);
    expect(importsOf('zod.ts')).toEqual(['zod']);
    expect(importsOf('instance.ts')).toEqual(['node:crypto', 'node:os', 'node:path']);
  });
});
