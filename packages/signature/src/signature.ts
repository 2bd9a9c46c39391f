// A command → its one-line signature, `name(params) -> {outputs}  [effect, scope]`, never longer than
// 400 characters (seed 000, "list_commands").
import { formatLiteral, formatName, isObject, own } from './format';
import { type Param, readParams } from './params';
import { renderType, type TypeRepr, typeText } from './type';

/** Longest signature line, in UTF-16 code units (so never more than 400 characters either). */
export const SIGNATURE_MAX_LENGTH = 400;

/** The cut mark that replaces trailing parameters (and ends anything else that had to be cut). */
const CUT = '…';
// When a line is too long, outputs and scope are held to these widths before parameters are cut,
// so a long outputs list cannot push every parameter out.
const OUTPUTS_CUT_WIDTH = 120;
const SCOPE_CUT_WIDTH = 64;

/**
 * What a signature is read from: a manifest row's `id`, `inputs`, `outputs`, `effect` and `scope`, or
 * an MCP tool's `name` and `inputSchema`. Every field may hold any value; what is not of the expected
 * shape is read as absent.
 */
export interface SignatureInput {
  /** The command's name as the model calls it (`people-discovery.dossier`). */
  readonly name: unknown;
  /** The argument schema as the host sent it, `x-*` keywords included (`x-source` is read). */
  readonly inputSchema: unknown;
  /** Names of the fields the command's answer declares (`["messages", "records"]`). */
  readonly outputs?: unknown;
  /** The declared effect: only `"read"` and `"write"` are shown; anything else is unknown. */
  readonly effect?: unknown;
  /** The target as the host writes it; `global` where none is declared. */
  readonly scope?: unknown;
}

interface RenderedParam {
  readonly text: string;
  /** Name and `?: `, for cutting a single parameter inside its type. */
  readonly prefix: string;
  readonly type: TypeRepr;
}

/**
 * Renders one command as its signature line, e.g.
 * `people-discovery.dossier(entity_id: string, limit?: integer = 50) -> {messages, records}  [read, global]`.
 *
 * Total and deterministic: any JSON value in any field (and cyclic objects) gives a line of at most
 * {@link SIGNATURE_MAX_LENGTH} characters, with no line break in it. A longer line loses its trailing
 * parameters to `…` first; the name, the `->` part and the bracket stay readable. The rules and the
 * decisions for cases the seed leaves open are in docs/signatures.md.
 */
export function renderSignature(input: SignatureInput): string {
  const source: Record<string, unknown> = isObject(input) ? input : {};
  const name = nameText(own(source, 'name'));
  const params = paramsOf(own(source, 'inputSchema'));
  const outputs = outputNames(own(source, 'outputs'));
  const effect = own(source, 'effect');
  const effectText = effect === 'read' || effect === 'write' ? `${effect}, ` : '';
  const scopeRaw = own(source, 'scope');
  const scope = typeof scopeRaw === 'string' && scopeRaw !== '' ? scopeRaw : 'global';

  const paramsText = params === 'open' ? '...' : joinParams(params);
  const full = `${name}(${paramsText})${tailOf(outputs.join(', '), effectText, formatName(scope))}`;
  if (full.length <= SIGNATURE_MAX_LENGTH) return full;

  const tail = tailOf(cutList(outputs, OUTPUTS_CUT_WIDTH), effectText, cutName(scope, SCOPE_CUT_WIDTH));
  if (params !== 'open') {
    const line = cutParams(name, params, tail);
    if (line !== undefined) return line;
  }
  // Even `name(…)` does not fit: the name itself is cut.
  const rest = `(${params === 'open' ? '...' : params.length === 0 ? '' : CUT})${tail}`;
  return `${cutName(rawName(own(source, 'name')), SIGNATURE_MAX_LENGTH - rest.length)}${rest}`;
}

function tailOf(outputs: string, effect: string, scope: string): string {
  return `${outputs === '' ? '' : ` -> {${outputs}}`}  [${effect}${scope}]`;
}

function joinParams(params: readonly RenderedParam[]): string {
  let text = '';
  for (let i = 0; i < params.length; i++) text += i === 0 ? params[i]!.text : `, ${params[i]!.text}`;
  return text;
}

function rawName(name: unknown): string {
  // A name that is not a string shows its JSON text (quoted), an absent one as "".
  if (name === undefined) return '';
  return typeof name === 'string' ? name : formatLiteral(name);
}

function nameText(name: unknown): string {
  return formatName(rawName(name));
}

function paramsOf(schema: unknown): RenderedParam[] | 'open' {
  const read = readParams(schema);
  if (read.kind === 'open') return 'open';
  if (read.kind === 'never') return [{ text: 'never', prefix: '', type: [] }];
  const required: Param[] = [];
  const optional: Param[] = [];
  for (const p of read.params) (p.required && !p.sourced ? required : optional).push(p);
  const ordered = [...required, ...optional];
  const out: RenderedParam[] = [];
  let width = 0;
  for (let i = 0; i < ordered.length; i++) {
    if (width > SIGNATURE_MAX_LENGTH) {
      // The line will be cut before here: stand-in for the rest rather than render thousands.
      out.push({ text: CUT, prefix: '', type: [] });
      break;
    }
    const r = renderParam(ordered[i]!, i < required.length ? '' : '?');
    out.push(r);
    width += r.text.length + 2;
  }
  return out;
}

function renderParam(p: Param, mark: string): RenderedParam {
  const prefix = `${formatName(p.name)}${mark}: `;
  const type = renderType(p.schema);
  const fallback = isObject(p.schema) && Object.hasOwn(p.schema, 'default') ? p.schema.default : undefined;
  const defaultText = fallback === undefined ? '' : ` = ${formatLiteral(fallback)}`;
  return { text: `${prefix}${typeText(type)}${defaultText}`, prefix, type };
}

function outputNames(outputs: unknown): string[] {
  if (!Array.isArray(outputs)) return [];
  const names: string[] = [];
  let width = 0;
  for (const o of outputs) {
    if (typeof o !== 'string') continue;
    const text = formatName(o);
    if (names.includes(text)) continue;
    names.push(text);
    width += text.length + 2;
    // Past any line's width: the rest would be cut away.
    if (width > SIGNATURE_MAX_LENGTH) {
      names.push(CUT);
      break;
    }
  }
  return names;
}

/** Joins names with `, `, keeping as many leading ones as fit `width`, the rest replaced by `…`. */
function cutList(names: readonly string[], width: number): string {
  const all = names.join(', ');
  if (all.length <= width) return all;
  const kept: string[] = [];
  let used = CUT.length;
  for (const n of names) {
    if (n === CUT || used + n.length + 2 > width) break;
    kept.push(n);
    used += n.length + 2;
  }
  return [...kept, CUT].join(', ');
}

/** A name formatted and, if longer than `width`, cut at a code point and marked `…` after its quote. */
function cutName(raw: string, width: number): string {
  const whole = formatName(raw);
  if (whole.length <= width) return whole;
  const points = Array.from(raw);
  let lo = 0;
  let hi = points.length;
  // The longest prefix whose formatted text plus the mark fits (formatted length grows with the prefix).
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (prefixText(points, mid).length + CUT.length <= width) lo = mid;
    else hi = mid - 1;
  }
  const text = `${prefixText(points, lo)}${CUT}`;
  return text.length <= width ? text : CUT;
}

function prefixText(points: readonly string[], n: number): string {
  return n === 0 ? '' : formatName(points.slice(0, n).join(''));
}

/** The longest line keeping whole leading parameters, or undefined when not even one fits. */
function cutParams(name: string, params: readonly RenderedParam[], tail: string): string | undefined {
  const budget = SIGNATURE_MAX_LENGTH - name.length - tail.length - 2;
  if (budget < (params.length === 0 ? 0 : CUT.length)) return undefined;
  let kept = 0;
  let used = 0;
  for (let i = 0; i < params.length; i++) {
    const last = i === params.length - 1;
    const cost = params[i]!.text.length + (i > 0 ? 2 : 0);
    // A parameter stays if the mark for whatever follows still fits after it.
    if (used + cost + (last ? 0 : 2 + CUT.length) > budget) break;
    used += cost;
    kept++;
  }
  if (kept === params.length) return `${name}(${joinParams(params)})${tail}`;
  if (kept > 0) {
    return `${name}(${[...params.slice(0, kept).map((p) => p.text), CUT].join(', ')})${tail}`;
  }
  // Not even the first parameter fits whole: show its name and as much of its type as fits.
  const first = params[0]!;
  const more = params.length > 1 ? `, ${CUT}` : '';
  const room = budget - more.length - first.prefix.length;
  if (first.prefix === '' || room < CUT.length) return `${name}(${CUT})${tail}`;
  return `${name}(${first.prefix}${cutType(first.type, room)}${more})${tail}`;
}

/** A type cut at a union boundary to fit `room`, `…` standing for the members left out. */
function cutType(type: TypeRepr, room: number): string {
  if (type === 'any' || type.length === 0) return CUT;
  let text = '';
  for (const a of type) {
    const next = text === '' ? a.text : `${text}|${a.text}`;
    if (next.length + 1 + CUT.length > room) break;
    text = next;
  }
  return text === '' ? CUT : `${text}|${CUT}`;
}
