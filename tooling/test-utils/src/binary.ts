// Whether a program is installed, as a shell would find it.
import { execFileSync } from 'node:child_process';

/** Absolute path of an executable on PATH, or undefined when it is not installed. */
export function findBinary(name: string): string | undefined {
  try {
    return (
      execFileSync('sh', ['-c', `command -v "$1"`, 'sh', name], { encoding: 'utf8' }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}
