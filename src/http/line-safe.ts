// JSON text that every line-splitting reader sees as one line. JSON.stringify writes U+2028
// (LINE SEPARATOR), U+2029 (PARAGRAPH SEPARATOR) and U+0085 (NEXT LINE) as they are, which JSON
// allows (RFC 8259, "Strings"), but readers that split text into lines by Unicode's rules
// (Python's str.splitlines, many log shippers) take them for line ends, so a principal's name or
// a tag holding one would split one record into several. Escaped (\u2028, \u2029, \u0085), the
// text is the same JSON value. The one place every JSON line the gateway writes passes through:
// the audit log, the logger's lines (its streamWrite hook) and the primary process's lines.

const LINE_BREAKS = /[\u0085\u2028\u2029]/;
const EVERY_LINE_BREAK = /[\u0085\u2028\u2029]/g;

/** `json` with U+0085, U+2028 and U+2029 escaped; `json` itself (no copy) when it holds none, the common case. */
export function lineSafe(json: string): string {
  if (!LINE_BREAKS.test(json)) return json;
  return json.replace(EVERY_LINE_BREAK, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
