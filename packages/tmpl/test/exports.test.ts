import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ParseResult,
  parse,
  type RefForm,
  type RenderContext,
  render,
  renderArgv,
  type Template,
  type TemplateIssue,
} from '../src/index';

const srcDir = join(import.meta.dirname, '..', 'src');

describe('public API', () => {
  it('exports exactly this list', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toMatchInlineSnapshot(`
      [
        "FENCE_MAX_BYTES",
        "IssueCode",
        "TmplError",
        "TmplErrorCode",
        "checkTemplate",
        "defineContext",
        "parse",
        "render",
        "renderArgv",
        "renderFence",
      ]
    `);
  });

  it('has the documented types', () => {
    expectTypeOf(parse).parameter(0).toEqualTypeOf<string>();
    expectTypeOf(parse).returns.toEqualTypeOf<ParseResult>();
    expectTypeOf<Extract<ParseResult, { ok: false }>['issues']>().toEqualTypeOf<readonly TemplateIssue[]>();
    expectTypeOf<RefForm>().toEqualTypeOf<'required' | 'optional' | 'untrusted'>();
    expectTypeOf(render).returns.toEqualTypeOf<string>();
    expectTypeOf(render).parameter(1).toEqualTypeOf<RenderContext>();
    expectTypeOf(renderArgv).parameter(0).toEqualTypeOf<readonly (string | Template)[]>();
    expectTypeOf(renderArgv).returns.toEqualTypeOf<string[]>();
  });
});

describe('the template package depends on no config or supervisor code [TM-16]', () => {
  const errorsDir = join(srcDir, '..', '..', 'errors');
  const importsOf = (dir: string) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]));

  // @harness/errors is the error convention's base class and code tables: no config, no supervisor,
  // no Node-only import, and it depends on nothing itself (docs/errors.md).
  it('imports nothing but its own modules and @harness/errors, which imports nothing (no Node-only import) [TM-16]', () => {
    const imports = importsOf(srcDir);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((i) => !i?.startsWith('./') && i !== '@harness/errors')).toEqual([]);
    expect(importsOf(join(errorsDir, 'src')).filter((i) => !i?.startsWith('./'))).toEqual([]);
  });

  it('declares no runtime dependency but @harness/errors, which declares none [TM-16]', () => {
    const pkg = JSON.parse(readFileSync(join(srcDir, '..', 'package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({ '@harness/errors': 'workspace:*' });
    const errorsPkg = JSON.parse(readFileSync(join(errorsDir, 'package.json'), 'utf8'));
    expect(errorsPkg.dependencies ?? {}).toEqual({});
  });
});

describe('nothing rendered is persisted [TM-15]', () => {
  it('has no I/O in its sources: rendering returns strings and writes nothing [TM-15]', () => {
    const io = /\b(writeFile|appendFile|createWriteStream|localStorage|indexedDB|fetch\(|process\.)/;
    for (const f of readdirSync(srcDir).filter((x) => x.endsWith('.ts'))) {
      expect({ file: f, io: io.test(readFileSync(join(srcDir, f), 'utf8')) }).toEqual({ file: f, io: false });
    }
  });

  it('keeps no rendered value on the template between renders [TM-15]', () => {
    const result = parse('id={{run.id}}');
    if (!result.ok) throw new Error('parse failed');
    render(result.template, { run: { id: 'secret-ish-value' } });
    expect(JSON.stringify(result.template)).not.toContain('secret-ish-value');
    expect(render(result.template, { run: { id: 'b' } })).toBe('id=b');
  });
});
