// The pending changesets are valid, and `changeset version` — run on a copy, as a dry run — exits 0
// and writes a CHANGELOG.md for each published package they name, with an entry for each of them,
// while the checkout stays as it was. docs/contributing.md, "Releases".
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { type Changeset, changesetVersionDryRun, parseChangeset, pendingChangesets } from '../src/changesets';
import { publishedPackages } from '../src/packages';

/** While the packages are 0.x a breaking change bumps the minor: `major` would publish 1.0.0. */
const BUMPS = new Set(['patch', 'minor']);

describe('the changeset parser', () => {
  it('reads the packages, their bumps and the summary', () => {
    expect(
      parseChangeset('a.md', '---\n"@harness/x": minor\n\'@harness/y\': patch\n---\n\nWhat changed.\n'),
    ).toEqual({
      file: 'a.md',
      releases: [
        { name: '@harness/x', type: 'minor' },
        { name: '@harness/y', type: 'patch' },
      ],
      summary: 'What changed.',
    });
  });

  it('refuses a file without front matter, or with a line that is not a bump', () => {
    expect(parseChangeset('a.md', 'What changed.\n')).toEqual({
      file: 'a.md',
      problem: 'no front matter between two --- lines',
    });
    expect(parseChangeset('b.md', '---\n"@harness/x" minor\n---\nWhat.\n')).toEqual({
      file: 'b.md',
      problem: 'not a "package": bump line: "@harness/x" minor',
    });
  });
});

describe('the pending changesets', () => {
  const pending = pendingChangesets(repoRoot);
  const published = new Set(publishedPackages(repoRoot).map((p) => p.manifest.name));

  it('each parse, bump only published packages, by patch or minor, and say what changed', () => {
    const problems = pending.flatMap((c) => {
      if ('problem' in c) return [`${c.file}: ${c.problem}`];
      const out: string[] = [];
      if (c.releases.length === 0) out.push(`${c.file}: bumps no package`);
      if (c.summary === '') out.push(`${c.file}: no summary`);
      for (const r of c.releases) {
        if (!published.has(r.name)) out.push(`${c.file}: ${r.name} is not a published package`);
        if (!BUMPS.has(r.type))
          out.push(`${c.file}: ${r.name}: ${r.type} (a 0.x package takes patch or minor)`);
      }
      return out;
    });
    expect(problems).toEqual([]);
  });
});

describe('changeset version, as a dry run on a copy', () => {
  it('exits 0 and writes each named package a CHANGELOG.md with an entry per changeset, in 0.x', async () => {
    const snapshot = () =>
      [
        ...readdirSync(join(repoRoot, '.changeset')),
        ...publishedPackages(repoRoot).map((p) => JSON.stringify(p.manifest)),
      ].join('\n');
    const before = snapshot();
    const pending = pendingChangesets(repoRoot).filter((c): c is Changeset => !('problem' in c));
    const run = await changesetVersionDryRun(repoRoot);

    expect(run.code, run.output).toBe(0);
    expect(run.left, 'changeset version leaves no changeset behind').toEqual([]);
    expect(snapshot(), 'the dry run changed the checkout').toBe(before);

    const byName = new Map([...run.packages.values()].map((p) => [p.name, p]));
    const missing: string[] = [];
    for (const changeset of pending) {
      const firstLine = changeset.summary.split('\n')[0]!.trim();
      for (const { name } of changeset.releases) {
        const log = byName.get(name)?.changelog;
        if (!log?.includes(firstLine)) missing.push(`${name}: no entry for ${changeset.file}`);
      }
    }
    expect(missing).toEqual([]);

    for (const { dir, manifest } of publishedPackages(repoRoot)) {
      const after = run.packages.get(dir)!;
      if (pending.some((c) => c.releases.some((r) => r.name === manifest.name))) {
        expect(after.changelog, `${dir}: no CHANGELOG.md`).toMatch(
          new RegExp(`^# ${manifest.name}\\n\\n## ${after.version.replaceAll('.', '\\.')}\\n`),
        );
      }
      expect(after.version, `${dir} would leave 0.x`).toMatch(/^0\./);
    }
    // Private packages (tooling/*) are not versioned: config.json's privatePackages.
    for (const [dir, after] of run.packages) {
      if (!dir.startsWith('tooling/')) continue;
      const manifest = JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8'));
      expect(after.version, dir).toBe(manifest.version);
      expect(after.changelog, dir).toBeUndefined();
    }
  }, 120_000);
});
