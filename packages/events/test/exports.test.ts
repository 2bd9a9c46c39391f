import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const srcDir = join(import.meta.dirname, '..', 'src');

describe('public API', () => {
  it('pins the root export list', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual([
      'ACTOR_PATTERN',
      'ENVELOPE_VERSION',
      'EVENT_ID_PATTERN',
      'EventsError',
      'EventsErrorCode',
      'META_KEY_PATTERN',
      'META_VALUE_PATTERN',
      'NAME_PATTERN',
      'NUMBER_MAX',
      'REPO_PATTERN',
      'RUN_TRIGGERS',
      'SHA_PATTERN',
      'SOURCE_PATTERN',
      'TIMESTAMP_PATTERN',
      'UNTRUSTED_FIELDS',
      'URL_MAX_BYTES',
      'allowSets',
      'buildEnvelope',
      'buildRenderContext',
      'checkAction',
      'checkActor',
      'checkMetaKey',
      'checkMetaValue',
      'checkName',
      'checkNumber',
      'checkRepo',
      'checkSha',
      'checkTrustedActors',
      'checkUrl',
      'eventIdFor',
      'extract',
      'extractWith',
      'extractorTables',
      'formatTimestamp',
      'isEventId',
      'isScheme',
      'parseEnvelope',
      'parseRunTemplate',
      'readPath',
      'runContext',
      'runContextPaths',
      'serializeEnvelope',
    ]);
  });

  it('pins the ./node export list', async () => {
    expect(Object.keys(await import('../src/node')).sort()).toEqual([
      'ENVELOPE_FILE_MODE',
      'readEnvelope',
      'writeEnvelope',
    ]);
  });

  it('keeps the root entry free of Node-only imports', () => {
    for (const file of readdirSync(srcDir).filter((f) => f !== 'node.ts')) {
      const text = readFileSync(join(srcDir, file), 'utf8');
      expect(text, file).not.toMatch(/from ['"]node:|require\(|process\./);
    }
  });
});
