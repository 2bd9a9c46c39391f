// Where the repository's documents point: markdown links and backticked paths, each resolved
// against the document's folder and the repository root.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { listFiles } from './files';

/** A pointer a document makes that does not lead to a file or folder inside the repository. */
export interface BadPointer {
  readonly doc: string;
  readonly target: string;
}

/** The repository's documents: README.md, SECURITY.md and every markdown file under docs/, packages/ and apps/. */
export function documents(root: string): string[] {
  const docs = ['docs', 'packages', 'apps']
    .flatMap((top) => listFiles(root, join(root, top)))
    .filter((f) => f.endsWith('.md') && !f.includes('CHANGELOG'));
  return ['README.md', 'SECURITY.md', ...docs];
}

const LINK = /\]\(([^)\s]+)\)/g;
// Folders of the project's working notes, which live beside the repository, not in it.
const OUTSIDE = new Set(['notes', 'seeds', 'shared']);
// A backticked token that names a file by a path with a folder in it: `docs/host.md`, `../x/y.ts`.
const PATH = /`((?:\.{1,2}\/)?[\w.@-]+(?:\/[\w.@-]+)+\.(?:md|ts|js|json|ya?ml|tsv))`/g;

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep);
}

/** Every link or path in `doc` that points outside the repository or at nothing. */
export function badPointers(root: string, doc: string): BadPointer[] {
  const text = readFileSync(join(root, doc), 'utf8');
  const here = dirname(join(root, doc));
  const bad: BadPointer[] = [];
  for (const [, raw = ''] of text.matchAll(LINK)) {
    if (/^[a-z]+:/i.test(raw) || raw.startsWith('#')) continue;
    const target = resolve(here, decodeURI(raw.split('#')[0]!));
    if (!inside(root, target) || !existsSync(target)) bad.push({ doc, target: raw });
  }
  for (const [, raw = ''] of text.matchAll(PATH)) {
    const first = raw.split('/')[0]!;
    if (OUTSIDE.has(first)) bad.push({ doc, target: raw });
    else if (first === '..') {
      const target = resolve(here, raw);
      if (!inside(root, target) || !existsSync(target)) bad.push({ doc, target: raw });
    } else if (first !== '.' && existsSync(join(root, first)) && !existsSync(join(root, raw))) {
      // A path from the repository root (`docs/…`, `packages/…`) must name a file that is there.
      bad.push({ doc, target: raw });
    }
    // Anything else names a file of the reader's own (`data/people.json`, `.cursor/mcp.json`).
  }
  return bad;
}
