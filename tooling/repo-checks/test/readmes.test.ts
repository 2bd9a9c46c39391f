// Every published package has a README of its own (npm shows it, and a framework that takes one
// package alone reads nothing else): its name, what it is, `npm install`, one example, a link to
// its docs page. The example is run here against the built package, as a user would run it, and
// must print what the README shows. The checks are first shown to catch what they forbid.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, tempDir } from '@harness/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { publishedPackages } from '../src/packages';
import { DOCS_URL, exampleOf, readmeProblems, runExample, typecheckExamples } from '../src/readmes';

const good = [
  '# @harness/x',
  '',
  'The x package does one thing well. It is small.',
  '',
  '## Install',
  '',
  '```sh',
  'npm install @harness/x',
  '```',
  '',
  '## Example',
  '',
  '```yaml file=data.yaml',
  'a: 1',
  '```',
  '',
  '```ts',
  "console.log('hello');",
  '```',
  '',
  '```text',
  'hello',
  '```',
  '',
  '## Documentation',
  '',
  `[docs/templates.md](${DOCS_URL}templates.md)`,
  '',
].join('\n');

describe('the README checks', () => {
  it('pass a complete README and find its example, its files and its output', () => {
    expect(readmeProblems(repoRoot, '@harness/x', good)).toEqual([]);
    expect(exampleOf(good)).toEqual({
      lang: 'ts',
      code: "console.log('hello');\n",
      files: { 'data.yaml': 'a: 1\n' },
      output: 'hello\n',
    });
  });

  it('name what a README lacks', () => {
    const broken = good
      .replace('# @harness/x', '# x')
      .replace('npm install @harness/x', 'npm install @harness/xy')
      .replace('```ts', '```js')
      .replace('templates.md)', 'no-such-page.md)');
    expect(readmeProblems(repoRoot, '@harness/x', broken)).toEqual([
      'the title is not "# @harness/x"',
      'the Install section does not say npm install @harness/x',
      'no ts or sh block in an Example section',
      'the link to docs/no-such-page.md names no file',
    ]);
    expect(readmeProblems(repoRoot, '@harness/x', '# @harness/x\n')).toEqual([
      'no lead paragraph saying what it is',
      'no Install section',
      'no ts or sh block in an Example section',
      `no Documentation section linking to a page under ${DOCS_URL}`,
    ]);
  });

  it('type-check an example against the built declarations, and name its errors', () => {
    const dir = join(repoRoot, 'packages', 'tmpl');
    expect(
      typecheckExamples(
        repoRoot,
        new Map([[dir, "import { parse } from '@harness/tmpl';\nconst n: number = parse('{{a}}').ok;\n"]]),
      ),
    ).toEqual([{ dir, message: "example line 2: Type 'boolean' is not assignable to type 'number'." }]);
  });

  it('run an example and report its failure', async () => {
    const dir = join(repoRoot, 'tooling', 'repo-checks');
    const failing = {
      lang: 'sh' as const,
      code: 'cat data.txt\nexit 3\n',
      files: { 'data.txt': 'x' },
      output: undefined,
    };
    expect(await runExample(dir, failing, {})).toMatchObject({ code: 3, stdout: 'x' });
  });
});

describe('the published packages', () => {
  const published = publishedPackages(repoRoot);
  const home = tempDir('readme-home-');
  afterAll(() => home.cleanup());

  it.each(published.map((p) => [p.manifest.name!, p] as const))(
    '%s has a README with what it is, install, an example and its docs page',
    (name, { dir }) => {
      const file = join(repoRoot, dir, 'README.md');
      expect(existsSync(file), `${dir}/README.md is missing`).toBe(true);
      expect(readmeProblems(repoRoot, name, readFileSync(file, 'utf8'))).toEqual([]);
    },
  );

  const tsExamples = () => {
    const examples = new Map<string, string>();
    for (const { dir } of published) {
      const example = exampleOf(readFileSync(join(repoRoot, dir, 'README.md'), 'utf8'));
      if (example?.lang === 'ts') examples.set(join(repoRoot, dir), example.code);
    }
    expect(examples.size).toBeGreaterThanOrEqual(15);
    return examples;
  };

  it.each(['Bundler', 'NodeNext'] as const)(
    'type-check: every ts example compiles against the built packages, strict, resolved as %s',
    (resolution) => {
      expect(typecheckExamples(repoRoot, tsExamples(), resolution)).toEqual([]);
    },
    120_000,
  );

  it.each(published.map((p) => [p.manifest.name!, p] as const))(
    "%s's README example runs and prints what the README shows",
    async (_name, { dir, manifest }) => {
      const packageDir = join(repoRoot, dir);
      expect(existsSync(join(packageDir, 'dist')), `${dir}/dist is missing: build first (pnpm build)`).toBe(
        true,
      );
      const example = exampleOf(readFileSync(join(packageDir, 'README.md'), 'utf8'));
      expect(example, `${dir}/README.md has no example`).toBeDefined();
      const bins = Object.fromEntries(
        Object.entries(
          typeof manifest.bin === 'string'
            ? { [manifest.name!.split('/')[1]!]: manifest.bin }
            : (manifest.bin ?? {}),
        ).map(([bin, script]) => [bin, join(packageDir, script)]),
      );
      // Everything an example writes outside its own folder goes under a fresh home of its own.
      const own = join(home.path, dir);
      const run = await runExample(packageDir, example!, bins, {
        // HOME too: `harness demo` starts its serve with a clean environment that keeps HOME only.
        HOME: join(own, 'home'),
        HARNESS_HOME: join(own, 'harness'),
        XDG_CONFIG_HOME: join(own, 'config'),
        XDG_DATA_HOME: join(own, 'data'),
        XDG_STATE_HOME: join(own, 'state'),
      });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      if (example!.output !== undefined) {
        if (example!.lang === 'ts') expect(run.stdout.trimEnd()).toBe(example!.output.trimEnd());
        else expect(run.stdout).toContain(example!.output.trimEnd());
      }
    },
    120_000,
  );
});
