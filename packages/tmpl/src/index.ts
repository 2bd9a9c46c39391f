// @harness/tmpl: the closed template grammar shared by pack argv, env and prompt templates. Pure: no
// Node-only import, so it runs in a browser too (the fence nonce comes from Web Crypto).
export { checkTemplate, defineContext } from './check';
export type { TemplateIssue, TmplErrorDetails, TmplErrorDetailsByCode } from './errors';
export { IssueCode, TmplError, TmplErrorCode } from './errors';
export type { FenceOptions } from './fence';
export { FENCE_MAX_BYTES, renderFence } from './fence';
export { parse } from './parse';
export { render, renderArgv } from './render';
export type {
  ArgvElement,
  CheckOptions,
  ContextDeclaration,
  ContextGetter,
  Location,
  ParseOptions,
  ParseResult,
  PathSpec,
  RefForm,
  RenderContext,
  RenderOptions,
  Template,
  TemplatePart,
  TemplateRef,
  TmplWarning,
  WarnHandler,
} from './types';
