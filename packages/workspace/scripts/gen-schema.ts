// Writes schema/workspace.schema.json from the zod definition (`pnpm schema`). A test fails when the
// shipped file is out of date.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaceJsonSchema } from '../src/schema';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema', 'workspace.schema.json');
writeFileSync(out, `${JSON.stringify(workspaceJsonSchema(), null, 2)}\n`);
console.log(`wrote ${out}`);
