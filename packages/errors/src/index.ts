// Public surface of @harness/errors: the one error convention of every package (docs/errors.md).
// A leaf: it depends on nothing, so every package, Node-free ones included, can build on it.

export { editDistance } from './distance';
export type { CodedErrorOptions, CodeOf, DetailsByCode, DetailsOf } from './error';
export { CodedError, defineCodes } from './error';
export type { Issue, IssueOf, IssuePath } from './issue';
export { describeFound, formatIssue, showPath, valueAt } from './issue';
