// The README every published package ships (what npm shows): its name as the title, what it is,
// an Install section, an Example section whose first block runs as shown, and a Documentation
// section linking to its page under docs/. docs/contributing.md, "Releases".
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** Where the docs live on the web: a README on npm cannot follow a relative link into the repository. */
export const DOCS_URL = 'https://github.com/harness-commands/harness-commands/blob/main/docs/';

/** A fenced block of a README: its language (the first word of its info string), the rest, its text. */
export interface Block {
  lang: string;
  info: string;
  text: string;
}

/** The `## ` sections of a Markdown text, by heading; the text before the first is under ''. */
export function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  let heading = '';
  let body: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith('## ')) {
      out.set(heading, body.join('\n'));
      heading = line.slice(3).trim();
      body = [];
    } else {
      body.push(line);
    }
  }
  out.set(heading, body.join('\n'));
  return out;
}

/** The fenced blocks of a Markdown text, in order. */
export function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (const m of markdown.matchAll(fence)) {
    const info = m[1]!.trim();
    out.push({ lang: info.split(/\s+/)[0] ?? '', info, text: m[2]! });
  }
  return out;
}

/**
 * A README's runnable example: the first `ts` or `sh` block of its Example section, the files the
 * `file=<name>` blocks before it give (written beside it), and the output the `text` block right
 * after it shows, if any.
 */
export interface Example {
  lang: 'ts' | 'sh';
  code: string;
  files: Record<string, string>;
  output: string | undefined;
}

/** The README's example, or undefined when its Example section has no `ts` or `sh` block. */
export function exampleOf(markdown: string): Example | undefined {
  const list = blocks(sections(markdown).get('Example') ?? '');
  const at = list.findIndex((b) => b.lang === 'ts' || b.lang === 'sh');
  if (at < 0) return undefined;
  const files: Record<string, string> = {};
  for (const b of list.slice(0, at)) {
    const name = /(?:^|\s)file=(\S+)/.exec(b.info)?.[1];
    if (name) files[name] = b.text;
  }
  const next = list[at + 1];
  return {
    lang: list[at]!.lang as 'ts' | 'sh',
    code: list[at]!.text,
    files,
    output: next?.lang === 'text' ? next.text : undefined,
  };
}

/** What a package README lacks: the title, the two sentences, install, example, docs link. */
export function readmeProblems(root: string, name: string, markdown: string): string[] {
  const problems: string[] = [];
  const parts = sections(markdown);
  const intro = parts.get('') ?? '';
  if (!intro.startsWith(`# ${name}\n`)) problems.push(`the title is not "# ${name}"`);
  if (intro.replace(/^# .*\n/, '').trim().length < 40) problems.push('no lead paragraph saying what it is');
  const install = parts.get('Install');
  if (install === undefined) problems.push('no Install section');
  else if (!new RegExp(`npm install (-g )?${name.replace('/', '\\/')}(\\s|$)`).test(install)) {
    problems.push(`the Install section does not say npm install ${name}`);
  }
  if (exampleOf(markdown) === undefined) problems.push('no ts or sh block in an Example section');
  const docs = parts.get('Documentation');
  const links = [...(docs ?? '').matchAll(/\]\((https:[^)#\s]+)(#[^)\s]*)?\)/g)].map((m) => m[1]!);
  const pages = links.filter((l) => l.startsWith(DOCS_URL)).map((l) => l.slice(DOCS_URL.length));
  if (pages.length === 0) problems.push(`no Documentation section linking to a page under ${DOCS_URL}`);
  for (const page of pages) {
    if (!existsSync(join(root, 'docs', page))) problems.push(`the link to docs/${page} names no file`);
  }
  return problems;
}

/** How a README's example ended: its exit code and what it printed. */
export interface ExampleRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Where `tsx`'s command line is, as repo-checks resolves it. */
const tsxCli = () =>
  join(createRequire(import.meta.url).resolve('tsx/package.json'), '..', 'dist', 'cli.mjs');

/**
 * Runs `example` as a user would, against the built package: a `ts` example with tsx from a folder
 * inside the package (so the package's own name and its dependencies resolve, to `dist/`); a `sh`
 * example with `sh -e` in a fresh folder, `bins` (name → script) on PATH as commands run by this
 * Node. Either way the example's files are written beside it first, and the folder is removed.
 * `env` names folders (a home, XDG folders) the example gets instead of this machine's: each is
 * created first.
 */
export function runExample(
  packageDir: string,
  example: Example,
  bins: Record<string, string>,
  env: Record<string, string> = {},
): Promise<ExampleRun> {
  for (const folder of Object.values(env)) if (folder.startsWith('/')) mkdirSync(folder, { recursive: true });
  const dir = mkdtempSync(
    example.lang === 'ts' ? join(packageDir, '.readme-example-') : join(tmpdir(), 'readme-'),
  );
  for (const [name, text] of Object.entries(example.files)) writeFileSync(join(dir, name), text);
  let command: string;
  let args: string[];
  const path = [process.env.PATH ?? ''];
  if (example.lang === 'ts') {
    writeFileSync(join(dir, 'example.ts'), example.code);
    command = process.execPath;
    args = [tsxCli(), 'example.ts'];
  } else {
    const shims = mkdtempSync(join(dir, 'bin-'));
    for (const [name, script] of Object.entries(bins)) {
      writeFileSync(join(shims, name), `#!/bin/sh\nexec '${process.execPath}' '${script}' "$@"\n`, {
        mode: 0o755,
      });
    }
    path.unshift(shims);
    command = 'sh';
    args = ['-e', '-c', example.code];
  }
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: dir,
        timeout: 120_000,
        maxBuffer: 16 << 20,
        env: { ...process.env, NODE_OPTIONS: '', ...env, PATH: path.join(':') },
      },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A type error in a README's `ts` example: the package folder, and the message with its line. */
export interface ExampleTypeError {
  dir: string;
  message: string;
}

/** How a consumer's tsconfig resolves modules: a bundler's way, or Node's own (ES modules). */
export type Resolution = 'Bundler' | 'NodeNext';

/**
 * Type-checks the `ts` examples (`dir` absolute → code) in one program, each from a folder inside
 * its package, against the packages' built declarations (no source condition): what a user's
 * editor would say of the example. The repository's compiler options, strict as for its sources,
 * with `resolution`. Under `NodeNext` our declaration files are checked too (`skipLibCheck` off,
 * their errors reported): a specifier Node cannot resolve there turns a package's exports into
 * `any` for a consumer with `skipLibCheck`, which no error in the example itself would show.
 */
export function typecheckExamples(
  root: string,
  examples: ReadonlyMap<string, string>,
  resolution: Resolution = 'Bundler',
): ExampleTypeError[] {
  const base = ts.readConfigFile(join(root, 'tooling', 'tsconfig', 'base.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(base.config, ts.sys, join(root, 'tooling', 'tsconfig'));
  const files = new Map<string, string>();
  const made: string[] = [];
  try {
    for (const [dir, code] of examples) {
      const folder = mkdtempSync(join(dir, '.readme-example-'));
      made.push(folder);
      writeFileSync(join(folder, 'example.ts'), code);
      files.set(join(folder, 'example.ts'), dir);
    }
    const node = resolution === 'NodeNext';
    const program = ts.createProgram([...files.keys()], {
      ...options,
      customConditions: [],
      noEmit: true,
      declaration: false,
      typeRoots: [join(root, 'node_modules', '@types')],
      ...(node
        ? {
            module: ts.ModuleKind.NodeNext,
            moduleResolution: ts.ModuleResolutionKind.NodeNext,
            skipLibCheck: false,
          }
        : {}),
    });
    const ours = /\/(packages|apps)\/[^/]+\/dist\/.*\.d\.ts$/;
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && (files.has(d.file.fileName) || (node && ours.test(d.file.fileName))))
      .map((d) => {
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        const example = files.get(d.file!.fileName);
        if (example) return { dir: example, message: `example line ${line + 1}: ${text}` };
        const file = relative(root, d.file!.fileName);
        return {
          dir: join(root, file.split('/').slice(0, 2).join('/')),
          message: `${file}:${line + 1}: ${text}`,
        };
      });
  } finally {
    for (const folder of made) rmSync(folder, { recursive: true, force: true });
  }
}
