// Terminal output: colour only on a TTY and never when NO_COLOR is set (https://no-color.org).
const useColor = (stream: NodeJS.WriteStream): boolean =>
  Boolean(stream.isTTY) && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');

function paint(code: number, text: string, stream: NodeJS.WriteStream): string {
  return useColor(stream) ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** Green text on a colour terminal. */
export const green = (text: string, stream = process.stdout): string => paint(32, text, stream);
/** Red text on a colour terminal. */
export const red = (text: string, stream = process.stdout): string => paint(31, text, stream);
/** Dim text on a colour terminal. */
export const dim = (text: string, stream = process.stdout): string => paint(2, text, stream);
/** Bold text on a colour terminal. */
export const bold = (text: string, stream = process.stdout): string => paint(1, text, stream);

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
