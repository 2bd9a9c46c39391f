import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import { renderSignature, type SignatureInput } from '../src/index';

// docs/signatures.md shows each rule as a ```sig block: the input as JSON, then `→ ` and the line.
const page = readFileSync(join(repoRoot, 'docs', 'signatures.md'), 'utf8');
const examples = [...page.matchAll(/```sig\n(.*)\n→ (.*)\n```/g)].map((m) => ({
  input: JSON.parse(m[1]!) as SignatureInput,
  line: m[2]!,
}));

describe('docs/signatures.md', () => {
  it('has an example for every signature rule', () => {
    expect(examples.length).toBeGreaterThanOrEqual(16);
    for (const id of [
      'HC-61',
      'HC-62',
      'HC-65',
      'HC-66',
      'HC-67',
      'HC-68',
      'HC-69',
      'HC-70',
      'HC-72',
      'HC-73',
      'HC-74',
      'HC-75',
      'HC-77',
      'HC-79',
      'HC-80',
      'HC-44',
      'HC-45',
      'HC-46',
    ]) {
      expect(page).toContain(`**${id}`);
    }
  });

  it.each(examples.map((e, i) => [i, e] as const))(
    'example %i renders as the page shows',
    (_, { input, line }) => {
      expect(renderSignature(input)).toBe(line);
    },
  );
});
