// Where the repository and its shared fixtures are.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Absolute path of the repository's `fixtures/` folder. */
export const fixturesDir = join(repoRoot, 'fixtures');
