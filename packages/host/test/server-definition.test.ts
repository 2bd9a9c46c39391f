// A tool's definition hash (SV-17): SHA-256 of the RFC 8785 JSON of the members a server lists and
// an agent reads, absent ones left out, nothing else counted.
import { createHash } from 'node:crypto';
import type { UpstreamTool } from '@harness/servers';
import { describe, expect, it } from 'vitest';
import { definitionHash, definitionJson } from '../src/servers/definition';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('definitionHash', () => {
  it('hashes the RFC 8785 JSON of name, title, description, schemas and annotations, members sorted, absent ones left out [SV-17]', () => {
    const tool: UpstreamTool = {
      name: 'send',
      description: 'Sends a message.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      annotations: { readOnlyHint: false },
    };
    const text =
      '{"annotations":{"readOnlyHint":false},"description":"Sends a message.","inputSchema":{"properties":{"text":{"type":"string"}},"type":"object"},"name":"send"}';
    expect(definitionJson(tool)).toBe(text);
    expect(definitionHash(tool)).toBe(sha256(text));
  });

  it('changes with any listed member and with nothing else a server sends [SV-17]', () => {
    const base: UpstreamTool = { name: 'send', inputSchema: { type: 'object' } };
    const hashes = [
      base,
      { ...base, title: 'Send' },
      { ...base, description: 'Sends.' },
      { ...base, outputSchema: { type: 'object' } },
      { ...base, annotations: { readOnlyHint: true } },
      { ...base, inputSchema: { type: 'object', properties: {} } },
    ].map(definitionHash);
    expect(new Set(hashes).size).toBe(hashes.length);
    const extra = { ...base, _meta: { anything: 1 }, icons: [] } as UpstreamTool;
    expect(definitionHash(extra)).toBe(definitionHash(base));
    expect(definitionHash({ inputSchema: { type: 'object' }, name: 'send' })).toBe(definitionHash(base));
  });
});
