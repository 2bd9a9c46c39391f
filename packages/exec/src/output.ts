import { StringDecoder } from 'node:string_decoder';

// Bounded capture of stdout + stderr: the first half of the ceiling is kept as it arrives (the head),
// the rest goes into a ring of chunks that keeps only the most recent bytes (the tail). Memory held
// is at most the ceiling plus one pipe chunk, whatever the child writes.

const EMPTY = Buffer.alloc(0);

interface TailEntry {
  fd: 0 | 1;
  buf: Buffer;
}

/** Text and byte accounting of one stream after capture. */
export interface CapturedStream {
  text: string;
  seen: number;
  kept: number;
}

/** The marker put between head and tail of a stream that lost bytes. */
export function truncationMarker(dropped: number): string {
  return `\n[... ${dropped} bytes dropped ...]\n`;
}

export class OutputCollector {
  readonly #ceiling: number;
  readonly #tailBudget: number;
  #headRemaining: number;
  readonly #head: [Buffer[], Buffer[]] = [[], []];
  #tail: TailEntry[] = [];
  #tailStart = 0;
  #tailBytes = 0;
  readonly #seen: [number, number] = [0, 0];
  #total = 0;

  constructor(ceiling: number) {
    this.#ceiling = ceiling;
    this.#headRemaining = Math.floor(ceiling / 2);
    this.#tailBudget = ceiling - this.#headRemaining;
  }

  /** Bytes of stdout + stderr taken so far, kept or not. */
  get seen(): number {
    return this.#total;
  }

  /** True once stdout + stderr together passed the ceiling. */
  get exceeded(): boolean {
    return this.#total > this.#ceiling;
  }

  /** Bytes of chunk views this collector still references (evicted slots included): never above the ceiling. */
  get heldBytes(): number {
    let n = 0;
    for (const part of this.#head[0]) n += part.length;
    for (const part of this.#head[1]) n += part.length;
    for (const entry of this.#tail) n += entry.buf.length;
    return n;
  }

  /** Takes one chunk of stream `fd` (0 = stdout, 1 = stderr). */
  push(fd: 0 | 1, chunk: Buffer): void {
    const length = chunk.length;
    if (length === 0) return;
    this.#seen[fd] += length;
    this.#total += length;
    let rest = chunk;
    if (this.#headRemaining > 0) {
      const take = Math.min(this.#headRemaining, length);
      this.#head[fd].push(take === length ? chunk : chunk.subarray(0, take));
      this.#headRemaining -= take;
      if (take === length) return;
      rest = chunk.subarray(take);
    }
    this.#tail.push({ fd, buf: rest });
    this.#tailBytes += rest.length;
    this.#evict();
  }

  #evict(): void {
    while (this.#tailBytes > this.#tailBudget) {
      const front = this.#tail[this.#tailStart] as TailEntry;
      const excess = this.#tailBytes - this.#tailBudget;
      if (front.buf.length <= excess) {
        this.#tailBytes -= front.buf.length;
        // Release the chunk now: the slot stays in the array until the next compaction.
        front.buf = EMPTY;
        this.#tailStart++;
      } else {
        front.buf = front.buf.subarray(excess);
        this.#tailBytes -= excess;
      }
    }
    // Compact now and then so the entry array does not grow with the whole output.
    if (this.#tailStart > 1024 && this.#tailStart * 2 > this.#tail.length) {
      this.#tail = this.#tail.slice(this.#tailStart);
      this.#tailStart = 0;
    }
  }

  /** The kept text of stream `fd`, with a marker where bytes were dropped. */
  result(fd: 0 | 1): CapturedStream {
    const seen = this.#seen[fd];
    const head = this.#head[fd];
    const tail: Buffer[] = [];
    for (let i = this.#tailStart; i < this.#tail.length; i++) {
      const entry = this.#tail[i] as TailEntry;
      if (entry.fd === fd) tail.push(entry.buf);
    }
    const headLength = byteLength(head);
    const tailLength = byteLength(tail);
    if (headLength + tailLength === seen) {
      return { text: decode([...head, ...tail]), seen, kept: seen };
    }
    // Cut on character boundaries so neither side ends in a broken UTF-8 sequence.
    const headEdge = edge(head, headLength - 4, headLength);
    const headCut = headEdge.length - utf8HeadBoundary(headEdge);
    const tailCut = utf8TailBoundary(edge(tail, 0, 3));
    dropEnd(head, headCut);
    dropStart(tail, tailCut);
    const kept = headLength - headCut + tailLength - tailCut;
    return { text: decode(head) + truncationMarker(seen - kept) + decode(tail), seen, kept };
  }
}

function byteLength(parts: readonly Buffer[]): number {
  let n = 0;
  for (const part of parts) n += part.length;
  return n;
}

// Decoding part by part avoids concatenating the kept bytes into one more copy of the ceiling.
function decode(parts: readonly Buffer[]): string {
  if (parts.length === 1) return (parts[0] as Buffer).toString('utf8');
  const decoder = new StringDecoder('utf8');
  let text = '';
  for (const part of parts) text += decoder.write(part);
  return text + decoder.end();
}

/** Bytes `from`..`to` (clamped) of the concatenation of `parts`, copied (at most a few bytes). */
function edge(parts: readonly Buffer[], from: number, to: number): Buffer {
  const out: number[] = [];
  let offset = 0;
  for (const part of parts) {
    for (let i = Math.max(0, from - offset); i < part.length && offset + i < to; i++)
      out.push(part[i] as number);
    offset += part.length;
    if (offset >= to) break;
  }
  return Buffer.from(out);
}

function dropEnd(parts: Buffer[], n: number): void {
  while (n > 0 && parts.length > 0) {
    const last = parts[parts.length - 1] as Buffer;
    if (last.length <= n) {
      parts.pop();
      n -= last.length;
    } else {
      parts[parts.length - 1] = last.subarray(0, last.length - n);
      n = 0;
    }
  }
}

function dropStart(parts: Buffer[], n: number): void {
  while (n > 0 && parts.length > 0) {
    const first = parts[0] as Buffer;
    if (first.length <= n) {
      parts.shift();
      n -= first.length;
    } else {
      parts[0] = first.subarray(n);
      n = 0;
    }
  }
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence. */
function utf8HeadBoundary(buf: Buffer): number {
  const end = buf.length;
  for (let i = end - 1, back = 0; i >= 0 && back < 4; i--, back++) {
    const byte = buf[i] as number;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return end - i >= need ? end : i;
  }
  return end;
}

/** Offset of the first byte of `buf` that is not a UTF-8 continuation byte (at most 3 skipped). */
function utf8TailBoundary(buf: Buffer): number {
  let i = 0;
  while (i < 3 && i < buf.length && ((buf[i] as number) & 0xc0) === 0x80) i++;
  return i;
}
