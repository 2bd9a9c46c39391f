// The structure of the source tree, read with the TypeScript parser: which module imports which
// (inside a package, by relative path; between packages, by `@harness/*` name), the circles in
// those graphs, and the functions longer than a reader can hold. docs/contributing.md, "Structure".
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { listFiles, packageDir } from './files';

/** The longest a source function may be, in lines from its first to its last (both counted). */
export const MAX_FUNCTION_LINES = 120;

/** A module graph: each node (a repository path or a package name) and what it imports. */
export type Graph = Map<string, Set<string>>;

/** A function over {@link MAX_FUNCTION_LINES}: where it starts, what it is called, how long it is. */
export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** Every TypeScript source file of the workspace packages (`<top>/<name>/src/**.ts`), relative to `root`. */
export function sourceFiles(root: string): string[] {
  return ['packages', 'apps', 'tooling']
    .filter((top) => existsSync(join(root, top)))
    .flatMap((top) => listFiles(root, join(root, top)))
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts') && f.split('/')[2] === 'src');
}

function parse(root: string, file: string): ts.SourceFile {
  const text = readFileSync(join(root, file), 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** The module specifiers a file names: imports, re-exports and dynamic `import('…')` of a literal. */
export function specifiers(source: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The repository path a relative specifier of `from` names, or undefined when no such file exists. */
function resolveRelative(root: string, from: string, spec: string): string | undefined {
  const base = normalize(join(dirname(from), spec.replace(/\.js$/, '')));
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  return candidates.find((c) => /\.tsx?$/.test(c) && existsSync(join(root, c)));
}

/** The package name of each workspace package folder (`packages/x` → `@harness/x`). */
function packageNames(root: string, dirs: Iterable<string>): Map<string, string> {
  const names = new Map<string, string>();
  for (const dir of dirs) {
    const manifest = join(root, dir, 'package.json');
    if (existsSync(manifest)) names.set(dir, JSON.parse(readFileSync(manifest, 'utf8')).name);
  }
  return names;
}

/**
 * The two import graphs of `files`: between modules of one package (relative imports, type-only
 * ones included: a circle of types is still a circle a reader must hold), and between packages
 * (`@harness/*` imports from a package's sources, its subpath exports included).
 */
export function importGraphs(root: string, files: string[]): { modules: Graph; packages: Graph } {
  const modules: Graph = new Map();
  const packages: Graph = new Map();
  const names = packageNames(root, new Set(files.map((f) => packageDir(f)!)));
  const known = new Set(names.values());
  for (const file of files) {
    const own = names.get(packageDir(file)!) ?? packageDir(file)!;
    const edges = modules.get(file) ?? new Set<string>();
    modules.set(file, edges);
    const uses = packages.get(own) ?? new Set<string>();
    packages.set(own, uses);
    for (const spec of specifiers(parse(root, file))) {
      if (spec.startsWith('.')) {
        const target = resolveRelative(root, file, spec);
        if (target) edges.add(target);
        continue;
      }
      const name = spec
        .split('/')
        .slice(0, spec.startsWith('@') ? 2 : 1)
        .join('/');
      if (known.has(name) && name !== own) uses.add(name);
    }
  }
  return { modules, packages };
}

/** The circles of a graph: each strongly connected component of two or more nodes (or a node that imports itself), sorted. */
export function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** The functions of one source file longer than `max` lines, from the line of their start to the line of their end. */
export function longFunctions(root: string, file: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const source = parse(root, file);
  const out: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) out.push({ file, line: start + 1, name: functionName(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
