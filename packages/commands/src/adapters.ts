// The function-calling adapter: harness tools as plain JSON-Schema function tools and a dispatcher.
import { notDelivered } from './failed-to-deliver';
import { textNestsDeeperThan } from './json';
import { LIMITS } from './limits';
import type { ToolOutcome } from './outcome';
import { DeliveryCode } from './outcome-codes';
import type { HarnessTool, JsonSchema, ToolContext } from './tool';
import { tooDeep } from './tool-input';

/** An OpenAI-style function tool (`tools: [{ type: 'function', function: {...} }]`). */
export interface OpenAiFunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

/** What a plain function-calling loop needs: the definitions to send, and a dispatcher. */
export interface FunctionTools {
  /** OpenAI-style definitions. */
  openai: OpenAiFunctionTool[];
  /** AI-SDK-style definitions keyed by name: `{ description, parameters, execute }`. */
  aiSdk: Record<
    string,
    { description: string; parameters: JsonSchema; execute(args: unknown): Promise<ToolOutcome> }
  >;
  /**
   * Runs one model tool call by name with the JSON text (or value) of its arguments. An unknown name
   * or unparseable arguments come back as a result the model can read, never a throw.
   */
  call(name: string, args: string | unknown): Promise<ToolOutcome>;
}

/**
 * Turns harness tools into plain JSON-Schema function tools. `context` is called per tool call so
 * each call gets the current run, slot, cancel signal and job id — never anything from the model.
 */
export function toFunctionTools(tools: readonly HarnessTool[], context: () => ToolContext): FunctionTools {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const call = async (name: string, args: string | unknown): Promise<ToolOutcome> => {
    const tool = byName.get(name);
    if (!tool) return notDelivered(DeliveryCode.unknown_tool, `No tool is named ${name.slice(0, 64)}.`);
    let input: unknown = args;
    if (typeof args === 'string') {
      // Bounded before parsing: the text never becomes a value too deep to walk.
      if (textNestsDeeperThan(args, LIMITS.maxInputDepth)) return tooDeep();
      try {
        input = args.trim() === '' ? {} : JSON.parse(args);
      } catch {
        return notDelivered(DeliveryCode.invalid_input, 'The tool arguments are not valid JSON.');
      }
    }
    return tool.execute(input, context());
  };
  return {
    openai: tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    })),
    aiSdk: Object.fromEntries(
      tools.map((t) => [
        t.name,
        {
          description: t.description,
          parameters: t.inputSchema,
          execute: (args: unknown) => t.execute(args, context()),
        },
      ]),
    ),
    call,
  };
}
