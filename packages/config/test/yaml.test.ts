import { describe, expect, it } from 'vitest';
import { parseYamlConfig } from '../src/yaml';

function mustParse(text: string) {
  const r = parseYamlConfig(text);
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r;
}

const errorsOf = (text: string) => {
  const r = parseYamlConfig(text);
  return r.ok ? [] : r.errors.map(({ line, column, message }) => `${line}:${column}: ${message}`);
};

describe('data', () => {
  it('reads YAML and JSON into plain data, an empty file as {}', () => {
    expect(mustParse('a: 1\nb: [x, "y"]\n').data).toEqual({ a: 1, b: ['x', 'y'] });
    expect(mustParse('{"a": {"b": true}}').data).toEqual({ a: { b: true } });
    expect(mustParse('').data).toEqual({});
    expect(mustParse('# only a comment\n').data).toEqual({});
  });

  it('expands aliases whose anchor comes first', () => {
    expect(mustParse('a: &x [1]\nb: *x\n').data).toEqual({ a: [1], b: [1] });
  });
});

describe('positions', () => {
  const text = 'packs:\n  - id: p\n    argv: [git, "--x={{n}}"]\n';

  it('finds the 1-based line and column of a value, or of its key', () => {
    const { loc } = mustParse(text);
    expect(loc.at(['packs', 0, 'id'])).toEqual({ line: 2, column: 9 });
    expect(loc.at(['packs', 0, 'id'], { key: true })).toEqual({ line: 2, column: 5 });
    expect(loc.at(['packs', 0, 'argv', 1])).toEqual({ line: 3, column: 17 });
  });

  it('points a missing key at the map that lacks it', () => {
    const { loc } = mustParse(text);
    expect(loc.at(['packs', 0, 'cwd'])).toEqual({ line: 2, column: 5 });
    expect(loc.at(['nothing', 3])).toEqual({ line: 1, column: 1 });
  });

  it('finds an offset inside a string spelled verbatim, else the string itself', () => {
    const { loc } = mustParse(text);
    expect(loc.inside(['packs', 0, 'argv', 1], 4)).toEqual({ line: 3, column: 22 });
    const escaped = mustParse('a: "\\u0041{{n}}"\n');
    expect(escaped.loc.inside(['a'], 1)).toEqual({ line: 1, column: 4 });
  });
});

describe('errors', () => {
  it('reports each syntax error at its position, in the parser words after "not valid YAML:"', () => {
    expect(errorsOf('a: 1\na: 2\n')).toEqual(['2:1: not valid YAML: Map keys must be unique']);
    expect(errorsOf('a: [x\n')).toEqual([
      '2:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
    const r = parseYamlConfig('a: 1\na: 2\n');
    expect(r.ok ? undefined : r.errors[0]?.reason).toBe('Map keys must be unique');
  });

  it('says to quote a template that YAML reads as a map', () => {
    expect(errorsOf('argv: [head, {{n}}]\n')).toEqual([
      '1:14: the unquoted template {{n}} reads as a YAML map; quote the template: "{{n}}"',
    ]);
    expect(errorsOf('a: {[x]: 1}\n')).toEqual([
      '1:4: a map key here is itself a map or a list, found "{[x]: 1}"; expected a plain key, e.g. key: value (quote a value that starts with "{" or "[")',
    ]);
  });

  it('names an alias whose anchor is not set before it, at the alias', () => {
    expect(errorsOf('a: *x\nb: &x 1\n')).toEqual([
      '1:4: not valid YAML: Unresolved alias (the anchor must be set before the alias): x',
    ]);
  });

  it('refuses more than 100 expanded aliases', () => {
    const bomb = ['a: &a [x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]'];
    bomb.push('c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]');
    expect(errorsOf(`${bomb.join('\n')}\n`)).toEqual(['1:1: not valid YAML: too many aliases']);
  });
});
