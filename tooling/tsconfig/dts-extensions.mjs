// Gives every relative specifier of the declaration files under a folder (default: dist) the
// extension Node's ES module resolver needs: `./parse` becomes `./parse.js`, `./load` becomes
// `./load/index.js`. The sources import without extensions (the bundler resolution of
// tooling/tsconfig/base.json), and tsc copies their specifiers as written; a consumer whose
// tsconfig says `"moduleResolution": "NodeNext"` would then resolve none of them, and with
// `skipLibCheck` see every export of the package as `any`. Run by each library's build, after tsc.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'dist');
// `from './x'`, `import './x'`, `import('./x')` (the type imports tsc writes), `export * from`.
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]*?)\2/g;

function declarationFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarationFiles(path);
    return entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The specifier with the extension Node needs, or as it was when it has one or names nothing. */
function withExtension(file, specifier) {
  if (/\.(m|c)?js$|\.json$/.test(specifier)) return specifier;
  const target = resolve(dirname(file), specifier);
  if (existsSync(`${target}.d.ts`)) return `${specifier}.js`;
  if (existsSync(join(target, 'index.d.ts'))) return `${specifier.replace(/\/$/, '')}/index.js`;
  return specifier;
}

let changed = 0;
for (const file of existsSync(root) ? declarationFiles(root) : []) {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(
    SPECIFIER,
    (_match, lead, quote, specifier) => `${lead}${quote}${withExtension(file, specifier)}${quote}`,
  );
  if (next !== text) {
    writeFileSync(file, next);
    changed += 1;
  }
}
if (process.env.HARNESS_DTS_VERBOSE) console.log(`dts-extensions: ${changed} file(s) under ${root}`);
