import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { badPointers, documents } from '../src/links';
import { RULE_TAG, readRules, readTags, TRACEABILITY_DOC } from '../src/traceability';

const doc = readFileSync(join(repoRoot, TRACEABILITY_DOC), 'utf8');
const rows = new Set([...doc.matchAll(/^\| ((?:HC|LA|CP|TM|SV)-\d+) \|/gm)].map((m) => m[1]));

describe(TRACEABILITY_DOC, () => {
  it('has a row for every rule in rules.tsv', () => {
    const rules = readRules(repoRoot);
    expect(rules.length).toBeGreaterThan(500);
    expect(rules.map((r) => r.id).filter((id) => !rows.has(id))).toEqual([]);
    for (const r of rules) expect(r.behaviour, r.id).not.toBe('');
  });

  it('has a row for every rule id a test tags', () => {
    const tags = readTags(repoRoot);
    expect(tags.size).toBeGreaterThan(400);
    const missing = [...tags]
      .filter(([id]) => !rows.has(id))
      .map(([id, files]) => `${id} (${files.join(', ')})`);
    expect(missing, 'add the rule to tooling/repo-checks/rules.tsv, or fix the tag').toEqual([]);
  });

  it('reads tags as rule ids only, not other words with a dash and a number', () => {
    // Built from parts so this file does not tag a rule itself.
    const [hc, tm, cp] = ['HC', 'TM', 'CP'].map((p) => `${p}-1`);
    expect(`[${hc}, ${tm}] UTF-8 SHA-256 ${cp}`.match(RULE_TAG)).toEqual([hc, tm, cp]);
  });
});

describe('documents', () => {
  const docs = documents(repoRoot);

  it('are found (the check is not vacuous)', () => {
    expect(docs).toContain('docs/signatures.md');
    expect(docs).toContain(TRACEABILITY_DOC);
  });

  it('point only at files inside the repository that exist', () => {
    expect(docs.flatMap((d) => badPointers(repoRoot, d))).toEqual([]);
  });

  it('flags a pointer out of the repository, and one at a file that does not exist', () => {
    // The check reads the page from disk; a page in this package's test folder stands in.
    expect(badPointers(repoRoot, 'tooling/repo-checks/test/fixtures/bad-pointers.md')).toEqual([
      {
        doc: 'tooling/repo-checks/test/fixtures/bad-pointers.md',
        target: '../../../../../shared/notes/rules.md',
      },
      { doc: 'tooling/repo-checks/test/fixtures/bad-pointers.md', target: 'missing.md' },
      { doc: 'tooling/repo-checks/test/fixtures/bad-pointers.md', target: 'notes/rules-host-commands.md' },
      { doc: 'tooling/repo-checks/test/fixtures/bad-pointers.md', target: 'docs/no-such-page.md' },
    ]);
  });
});
