// Node-only half of @harness/events: the envelope file. The root entry stays free of Node imports.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  buildEnvelope,
  type EnvelopeInput,
  type EnvelopeResult,
  type LoadedEnvelope,
  parseEnvelope,
  type ReplayOptions,
  serializeEnvelope,
} from './envelope';
import { EventsError, EventsErrorCode } from './errors';

/** The mode of every envelope file: readable and writable by its owner only. */
export const ENVELOPE_FILE_MODE = 0o600;

/**
 * Builds the version-1 envelope of a delivery (extracting `typed` once) and writes it to `path`
 * before the run starts: mode 0600, atomically (a temporary file in the same directory, fsync, then
 * rename), so a run never sees a half-written file and an existing file is replaced whole.
 *
 * Throws {@link EventsError} `invalid_envelope` (see `buildEnvelope`) or `envelope_write_failed`.
 */
export async function writeEnvelope(path: string, input: EnvelopeInput): Promise<LoadedEnvelope> {
  const loaded = buildEnvelope(input);
  const text = serializeEnvelope(loaded.envelope);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // `wx` refuses to follow or reuse an existing file; the mode is set at creation, so the secret-free
    // but still private body is never readable by others, not even for an instant.
    const handle = await open(temp, 'wx', ENVELOPE_FILE_MODE);
    try {
      await handle.chmod(ENVELOPE_FILE_MODE);
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (cause) {
    await unlink(temp).catch(() => undefined);
    throw new EventsError(
      EventsErrorCode.envelope_write_failed,
      `Could not write the event envelope ${path}: ${(cause as NodeJS.ErrnoException)?.code ?? 'unknown error'}; check that the directory exists and is writable.`,
      { cause },
    );
  }
  return loaded;
}

/**
 * Reads an envelope file for a replay and re-extracts `typed` from its stored body with the configured
 * scheme and trusted actors (see `parseEnvelope`); a hand-edited `typed` is ignored. Never throws:
 * a missing or unreadable file is an `unreadable` issue.
 */
export async function readEnvelope(path: string, options: ReplayOptions): Promise<EnvelopeResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    return {
      ok: false,
      issues: [
        {
          code: 'unreadable',
          path: '',
          message: `Could not read the event envelope ${path}: ${(cause as NodeJS.ErrnoException)?.code ?? 'unknown error'}; check the path given to --event.`,
        },
      ],
    };
  }
  return parseEnvelope(text, options);
}
