// Reading a server's tool listing: every page, bounded in bytes, each tool cut down to the fields
// harness hands on.
import type { Client, RequestOptions, Tool } from '@modelcontextprotocol/client';
import type { UpstreamTool } from './types';

/** Most pages a listing may take: a server whose cursor never ends is not read forever. */
const MAX_PAGES = 1_000;

/** A listing the server sent but harness will not take (too large, a cursor that never ends). */
export class ListingRefused extends Error {}

function upstreamTool(tool: Tool): UpstreamTool {
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema === undefined
      ? {}
      : { outputSchema: tool.outputSchema as Record<string, unknown> }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations as Record<string, unknown> }),
  };
}

/**
 * Reads every page of `tools/list`. Throws {@link ListingRefused} naming the server once the pages'
 * tools, as JSON, pass `maxBytes`.
 */
export async function readListing(
  client: Client,
  id: string,
  maxBytes: number,
  options: RequestOptions = {},
): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    bytes += Buffer.byteLength(JSON.stringify(result.tools));
    if (bytes > maxBytes) {
      throw new ListingRefused(
        `server ${id} listed more than ${maxBytes} bytes of tools (maxListingBytes); harness takes no listing that large`,
      );
    }
    tools.push(...result.tools.map(upstreamTool));
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new ListingRefused(
    `server ${id} sent more than ${MAX_PAGES} pages of tools/list; harness stops reading there`,
  );
}
