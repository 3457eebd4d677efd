// Methods that change nothing (RFC 9110, "Safe Methods"): the cross-site guard lets them through
// unchecked, and the audit log writes no line for them unless they are refused.

/** The safe methods among those the gateway serves. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);
