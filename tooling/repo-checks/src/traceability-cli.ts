// Writes docs/traceability.md from rules.tsv and the tests' rule tags.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRules, readTags, renderTraceability, TRACEABILITY_DOC } from './traceability';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
writeFileSync(join(root, TRACEABILITY_DOC), renderTraceability(readRules(root), readTags(root)));
console.log(`wrote ${TRACEABILITY_DOC}`);
