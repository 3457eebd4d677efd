// A job's entity tag as text: its currentHash, an int64, as a quoted decimal (docs/architecture.md,
// "HTTP surface"). A leaf: the ETag header's schema and the precondition parser read the same
// pattern.

/** A strong entity tag holding a canonical decimal of at most 19 digits (the range is checked apart). */
export const STRONG_ENTITY_TAG = '^"(0|-?[1-9][0-9]{0,18})"$';
