// The JSON mirror's public API (docs/architecture.md, "JSON rules").
export { messageFromJson, messageToJson } from "./mirror.js";
export { jobFromJson, jobToJson } from "./job.js";
export { applyMergePatch, mergePatchMessage } from "./merge-patch.js";
export type { JobJson } from "./job.js";
export { MirrorError, UnrepresentableError } from "./errors.js";
export type { MirrorIssue } from "./errors.js";
