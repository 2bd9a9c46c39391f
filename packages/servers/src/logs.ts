// A bounded ring of the last bytes a server wrote to stderr (or, for HTTP, the connection's errors):
// enough to say why a server failed, never an unbounded buffer a chatty server can grow.

/** The last `capacity` bytes written to it. */
export class LogRing {
  private chunks: Buffer[] = [];
  private size = 0;
  /** How many writes it has taken: a reader that kept a copy knows from it whether to copy again. */
  version = 0;

  constructor(private readonly capacity: number) {}

  /** Appends bytes (or a line of text), dropping the oldest past the capacity. */
  write(data: Buffer | string): void {
    const chunk = typeof data === 'string' ? Buffer.from(data.endsWith('\n') ? data : `${data}\n`) : data;
    if (this.capacity <= 0 || chunk.length === 0) return;
    this.version++;
    this.chunks.push(chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk);
    this.size += Math.min(chunk.length, this.capacity);
    while (this.size > this.capacity) {
      const first = this.chunks[0] as Buffer;
      const over = this.size - this.capacity;
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
      }
    }
  }

  /** Marks the ring as it is now: the function returned takes it back there, dropping later writes. */
  mark(): () => void {
    const chunks = [...this.chunks];
    const size = this.size;
    return () => {
      this.chunks = chunks;
      this.size = size;
      this.version++;
    };
  }

  /** The kept bytes as text, starting at a whole character. */
  text(): string {
    const bytes = Buffer.concat(this.chunks);
    let start = 0;
    // A cut inside a multi-byte character leaves continuation bytes (10xxxxxx) at the front.
    while (start < bytes.length && start < 4 && ((bytes[start] as number) & 0xc0) === 0x80) start++;
    return bytes.subarray(start).toString('utf8');
  }

  /**
   * The last `count` lines that say something, joined with " | ", for a one-line message. A crash
   * report's furniture is left out so the error itself is among them: stack frames, an object dump
   * after the error (`{ code: …, requireStack: … }`), the echoed source line with its caret, the
   * runtime's location and version lines.
   */
  tail(count = 3): string {
    return meaningfulLines(this.text()).slice(-count).join(' | ');
  }
}

/** Lines of a crash report that say nothing a person needs to see why it crashed. */
const FURNITURE = [/^at\s/, /^Node\.js v\d/, /^node:internal\//, /^[{}[\]]+[,;]?$/];

/** The non-empty lines of `text`, trimmed, without a crash report's furniture. */
function meaningfulLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trim());
  const kept: string[] = [];
  let inDump = false;
  for (const line of lines) {
    if (inDump) {
      inDump = line !== '}';
      continue;
    }
    // An error's property dump opens at the end of its last stack frame: `    at … {`.
    if (/^at\s.*\{$/.test(line)) inDump = true;
    if (line === '' || FURNITURE.some((pattern) => pattern.test(line))) continue;
    // A caret marks a column of the source line the runtime echoed just above it.
    if (/^\^+$/.test(line)) {
      kept.pop();
      continue;
    }
    kept.push(line);
  }
  return kept;
}
