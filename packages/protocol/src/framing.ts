// Newline framing: one JSON value per line, UTF-8, each line bounded (docs/protocol.md, "Framing").

import { utf8Length } from '@harness/config';

// Public here too, as part of the framing a peer needs; the one copy lives in @harness/config.
export { utf8Length };

/** One line taken from a {@link LineReader}: its text, or the fact that it was over the cap. */
export type Line = { ok: true; text: string } | { ok: false; reason: 'too_long' };

/** True when `text` holds more than `max` bytes of UTF-8, without counting when the length decides. */
export function exceedsBytes(text: string, max: number): boolean {
  if (text.length * 3 <= max) return false;
  if (text.length > max) return true;
  return utf8Length(text) > max;
}

/**
 * Splits decoded text (a socket with `setEncoding('utf8')`) into lines of at most `maxLineBytes`
 * bytes. Complete lines queue until taken with {@link LineReader.next}, so a reader can stop taking
 * them (backpressure) without losing any. Each chunk is scanned once: a long line arriving in many
 * chunks costs linear time.
 */
export class LineReader {
  readonly maxLineBytes: number;
  #lines: Line[] = [];
  #head = 0;
  #tail: string[] = [];
  #tailBytes = 0;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * Adds a chunk. Returns `false` when the unterminated line grew past the cap: that line can never
   * be read, so the reader forgets it (and the caller should end the stream, which cannot be
   * resynchronised). Lines completed before it stay queued.
   */
  push(chunk: string): boolean {
    let start = 0;
    let nl = chunk.indexOf('\n');
    while (nl >= 0) {
      const piece = chunk.slice(start, nl);
      const text = this.#tail.length === 0 ? piece : this.#tail.join('') + piece;
      this.#tail = [];
      this.#tailBytes = 0;
      this.#lines.push(
        exceedsBytes(text, this.maxLineBytes) ? { ok: false, reason: 'too_long' } : { ok: true, text },
      );
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) {
      const rest = start === 0 ? chunk : chunk.slice(start);
      this.#tail.push(rest);
      this.#tailBytes += utf8Length(rest);
      if (this.#tailBytes > this.maxLineBytes) {
        this.#tail = [];
        this.#tailBytes = 0;
        return false;
      }
    }
    return true;
  }

  /** The next complete line, or `undefined` when none is queued. */
  next(): Line | undefined {
    if (this.#head >= this.#lines.length) return undefined;
    const line = this.#lines[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#lines.length) {
      this.#lines = this.#lines.slice(this.#head);
      this.#head = 0;
    }
    return line;
  }

  /** Complete lines queued and not yet taken. */
  get queued(): number {
    return this.#lines.length - this.#head;
  }

  /** Forgets everything buffered. */
  clear(): void {
    this.#lines = [];
    this.#head = 0;
    this.#tail = [];
    this.#tailBytes = 0;
  }
}

/** One value as a line: compact JSON plus the newline. */
export function encodeLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
