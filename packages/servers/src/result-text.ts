// A tools/call result as harness hands it on: its text contents joined, every other kind summarised
// in one bracketed line, the whole cut to the caller's byte bound at a character boundary.
import type { CallToolResult } from '@modelcontextprotocol/client';

type Block = CallToolResult['content'][number];

/** Bytes a base64 string decodes to, without decoding it. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** One content block as text: text as it is, any other kind as `[kind …, N bytes]`. */
export function blockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource': {
      const r = block.resource;
      const bytes =
        'text' in r && typeof r.text === 'string'
          ? Buffer.byteLength(r.text)
          : base64Bytes(String((r as { blob?: unknown }).blob ?? ''));
      return `[resource ${r.uri}, ${r.mimeType ?? 'unknown type'}, ${bytes} bytes]`;
    }
    case 'resource_link':
      return `[resource link ${block.uri}${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    default:
      return `[${String((block as { type?: unknown }).type)}]`;
  }
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
export function cutUtf8(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = Math.max(0, maxBytes);
  // Back off continuation bytes so the cut lands before a character's first byte.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/** The call's text (all blocks, joined with "\n") and structured content, bounded by `maxBytes`. */
export function resultText(
  result: CallToolResult,
  maxBytes: number,
): { text: string; structured?: unknown; exceeded: boolean } {
  const { text, cut } = cutUtf8((result.content ?? []).map(blockText).join('\n'), maxBytes);
  if (result.structuredContent === undefined) return { text, exceeded: cut };
  // Structured content cannot be cut and stay what it says: over the bound, it is left out.
  const fits = Buffer.byteLength(JSON.stringify(result.structuredContent)) <= maxBytes;
  return fits ? { text, structured: result.structuredContent, exceeded: cut } : { text, exceeded: true };
}
