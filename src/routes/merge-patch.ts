// JSON Merge Patch (RFC 7396) over plain JSON values.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Applies `patch` to `target` and returns the result; neither input is changed. Objects merge
 * key by key, `null` removes a key, anything else (arrays included) replaces. Result objects
 * have no prototype-sensitive keys: "__proto__" is set as an own property, like any other.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isObject(target)) for (const key of Object.keys(target)) define(result, key, target[key]);
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete result[key];
    else define(result, key, applyMergePatch(result[key], value));
  }
  return result;
}

function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
