// The workspace files the CLI ships (dist/examples, copied from fixtures/workspaces at build): every
// `$schema` they name, as an editor reads it, is a file that exists and is the workspace schema.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fixturesDir, repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { appDir } from './helpers';

const SCHEMA = join(repoRoot, 'packages', 'workspace', 'schema', 'workspace.schema.json');

/** Every YAML file under `dir`. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(path);
    return e.isFile() && /\.ya?ml$/.test(e.name) ? [path] : [];
  });
}

/**
 * The `$schema` references of a YAML file: the yaml-language-server modeline
 * (`# yaml-language-server: $schema=<path>`) and a top-level `$schema: <path>` key.
 */
function schemaReferences(text: string): string[] {
  const modelines = [...text.matchAll(/^#\s*yaml-language-server:\s*\$schema=(\S+)\s*$/gm)];
  const keys = [...text.matchAll(/^\$schema:\s*['"]?([^'"\s#]+)['"]?\s*(#.*)?$/gm)];
  return [...modelines, ...keys].map((m) => m[1] as string);
}

describe('the shipped workspace files', () => {
  const files = [
    ...yamlFiles(join(appDir, 'dist', 'examples')),
    ...yamlFiles(join(fixturesDir, 'workspaces')),
  ];

  it('name a $schema in the example the package ships', () => {
    const shipped = join(appDir, 'dist', 'examples', 'demo', 'workspace.yaml');
    expect(files).toContain(shipped);
    expect(schemaReferences(readFileSync(shipped, 'utf8'))).toHaveLength(1);
  });

  it('name only a $schema that resolves, from the file, to the workspace JSON Schema', () => {
    const found: string[] = [];
    for (const file of files) {
      for (const ref of schemaReferences(readFileSync(file, 'utf8'))) {
        const target = resolve(dirname(file), ref);
        const where = `${relative(repoRoot, file)}: $schema=${ref} (${target})`;
        found.push(where);
        expect(existsSync(target), where).toBe(true);
        expect(readFileSync(target, 'utf8'), where).toBe(readFileSync(SCHEMA, 'utf8'));
      }
    }
    expect(found.length).toBeGreaterThanOrEqual(2);
  });

  it('stay inside the package: the shipped example names a schema the package itself holds', () => {
    const shipped = join(appDir, 'dist', 'examples', 'demo', 'workspace.yaml');
    for (const ref of schemaReferences(readFileSync(shipped, 'utf8'))) {
      const target = resolve(dirname(shipped), ref);
      expect(relative(join(appDir, 'dist'), target)).not.toMatch(/^\.\./);
    }
  });
});
