// Terminal output: colour only on a TTY and never when NO_COLOR is set (https://no-color.org).
/** A stream as far as colour cares: whether it is a terminal. */
type Target = Pick<NodeJS.WriteStream, 'isTTY'>;

const useColor = (stream: Target): boolean =>
  Boolean(stream.isTTY) && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');

function paint(code: number, text: string, stream: Target): string {
  return useColor(stream) ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** Green text on a colour terminal. */
export const green = (text: string, stream: Target = process.stdout): string => paint(32, text, stream);
/** Red text on a colour terminal. */
export const red = (text: string, stream: Target = process.stdout): string => paint(31, text, stream);
/** Dim text on a colour terminal. */
export const dim = (text: string, stream: Target = process.stdout): string => paint(2, text, stream);
/** Bold text on a colour terminal. */
export const bold = (text: string, stream: Target = process.stdout): string => paint(1, text, stream);

/** Writes one line to stdout. */
export function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Writes one line to stderr. */
export function err(line = ''): void {
  process.stderr.write(`${line}\n`);
}

/** Prints a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A running progress line; `stop` clears it. */
export interface Spinner {
  stop(): void;
}

/**
 * Shows a spinner line on `stream` while something slow runs, only when `stream` is a TTY: piped
 * or captured output (CI, tests, a log file) never receives the frames.
 */
export function spinner(
  text: string,
  stream: Pick<NodeJS.WriteStream, 'isTTY' | 'write'> = process.stderr,
): Spinner {
  if (!stream.isTTY) return { stop() {} };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  const draw = () => {
    stream.write(`\r${frames[i++ % frames.length]} ${text}`);
  };
  draw();
  const timer = setInterval(draw, 80);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      stream.write('\r\u001b[2K');
    },
  };
}
