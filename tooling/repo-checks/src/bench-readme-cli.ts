// Writes bench/README.md from bench/results/*.json (`pnpm bench-readme`; `pnpm bench` runs it last).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchReadme } from './bench-readme';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
writeFileSync(join(root, 'bench', 'README.md'), benchReadme(join(root, 'bench', 'results')));
console.log('wrote bench/README.md');
