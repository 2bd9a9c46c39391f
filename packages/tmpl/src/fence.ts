import { TmplErrorCode, tmplError } from './errors';
import type { WarnHandler } from './types';

/** Content bytes kept inside a fence; the rest is dropped and counted (origins: 4096). */
export const FENCE_MAX_BYTES = 4096;
const NONCE_BYTES = 16; // 128 bits, the floor origins sets

// C0 controls except tab (0x09) and newline (0x0a), DEL, and C1 controls. DEL goes too: it is a control
// character with no business in prose, and the seed leaves it open (TM-34).
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Options of {@link renderFence}. */
export interface FenceOptions {
  /** The `field` attribute: the context path the content came from (e.g. `event.body`). */
  readonly field: string;
  /** The `source` attribute (e.g. `webhook.gitea-pr`). Default `unknown`. */
  readonly source?: string;
  /** See `RenderOptions.randomBytes`. */
  readonly randomBytes?: (buffer: Uint8Array) => void;
  /** Receives the `untrusted_render` warning. Default: `console.warn`. */
  readonly onWarn?: WarnHandler;
}

function webRandom(buffer: Uint8Array): void {
  globalThis.crypto.getRandomValues(buffer);
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function attr(value: string): string {
  return value
    .replace(CONTROL_RE, '')
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function utf8Length(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/**
 * @internal Strips control characters, makes the text well-formed (a lone surrogate becomes U+FFFD, as
 * UTF-8 encoding would make it), and caps it at {@link FENCE_MAX_BYTES} UTF-8 bytes on a character
 * boundary. The cap applies after stripping, so N counts bytes of content that would have been shown.
 */
export function sanitizeFenced(content: string): string {
  const clean = content.replace(CONTROL_RE, '').replace(LONE_SURROGATE_RE, '\ufffd');
  // A UTF-16 unit never takes more than 3 UTF-8 bytes (a surrogate pair takes 4 for 2 units).
  if (clean.length * 3 <= FENCE_MAX_BYTES) return clean;
  let bytes = 0;
  let cut = -1;
  let i = 0;
  for (const ch of clean) {
    const n = utf8Length(ch.codePointAt(0) ?? 0);
    if (cut === -1 && bytes + n > FENCE_MAX_BYTES) cut = i;
    bytes += n;
    i += ch.length;
  }
  if (cut === -1) return clean;
  let kept = 0;
  for (const ch of clean.slice(0, cut)) kept += utf8Length(ch.codePointAt(0) ?? 0);
  return `${clean.slice(0, cut)}\n[truncated ${bytes - kept} bytes]`;
}

/**
 * Renders free text inside the untrusted fence:
 *
 * ```text
 * <untrusted-data source="SOURCE" field="PATH" nonce="NONCE">
 * CONTENT
 * </untrusted-data nonce="NONCE">
 * ```
 *
 * NONCE is 128 random bits (32 hex digits) drawn for every call, drawn again while the content contains
 * it, so content can never write the closing tag. CONTENT has NUL, C0/C1 controls and DEL removed (newline
 * and tab kept) and is capped at 4096 UTF-8 bytes on a character boundary, followed by a line
 * `[truncated N bytes]` (N = bytes dropped). `undefined` renders an empty block. Attribute values are
 * entity-escaped. Every call emits an `untrusted_render` warning.
 */
export function renderFence(content: string | undefined, options: FenceOptions): string {
  const body = content === undefined ? '' : sanitizeFenced(content);
  const fill = options.randomBytes ?? webRandom;
  const buffer = new Uint8Array(NONCE_BYTES);
  let nonce: string;
  let draws = 0;
  do {
    fill(buffer);
    nonce = hex(buffer);
    draws++;
    // A CSPRNG colliding with the content 64 times running is not chance; refuse rather than loop forever.
    if (draws > 64) {
      throw tmplError(
        TmplErrorCode.nonce_unavailable,
        `Could not draw a fence nonce absent from the content of ${options.field} after 64 draws: the random source is broken; use a CSPRNG.`,
        { path: options.field },
      );
    }
  } while (body.includes(nonce));
  (options.onWarn ?? defaultFenceWarn)({
    code: 'untrusted_render',
    message: `Rendered free text from ${options.field} inside the untrusted fence.`,
    path: options.field,
  });
  const source = attr(options.source ?? 'unknown');
  return `<untrusted-data source="${source}" field="${attr(options.field)}" nonce="${nonce}">\n${body}\n</untrusted-data nonce="${nonce}">`;
}

function defaultFenceWarn(warning: { message: string }): void {
  console.warn(`[@harness/tmpl] WARN ${warning.message}`);
}
