import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('exports exactly the pinned names', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'CREDENTIAL_ATOM_PREFIX',
      'IfcError',
      'IfcErrorCode',
      'LABEL_READ_FAILED',
      'MAX_ATOM_DEPTH',
      'OBSERVATIONS_KEPT',
      'ObservationLog',
      'POLICY_MODES',
      'PROMPT_SLOTS',
      'PUBLIC',
      'READ_FAILED_ATOM',
      'REFERENT_BOUNDS',
      'ReferentStore',
      'STRICT_CONTEXT_READ_TOOLS',
      'TOOL_EFFECTS',
      'WITHHELD_CEILING_EXCEEDED',
      'WITHHELD_LABEL_READ_FAILED',
      'atomKey',
      'authorize',
      'carriesReadFailedMarker',
      'credentialAtom',
      'fits',
      'flowsTo',
      'join',
      'joinAll',
      'labelForUnlabeled',
      'measure',
      'meetCeilings',
      'normalize',
      'readCeiling',
      'readLabel',
    ]);
  });

  it('imports no Node-only module from its sources', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = join(import.meta.dirname, '..', 'src');
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8');
      const imports = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      expect(
        imports.filter((s) => !s?.startsWith('./') && s !== '@harness/errors'),
        file,
      ).toEqual([]);
    }
  });
});
