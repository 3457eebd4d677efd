// A client certificate's subject as one unambiguous string, the principal's id: the RFC 4514
// form of the X.509 Name, read from the certificate's DER itself. Node's parsed subject
// (getPeerCertificate().subject) cannot give it: it merges the attributes of one type into an
// array, losing which RDN each came from and their order. In RFC 4514's form the RDNs are
// written last first, joined by `,`, the attributes of one RDN by `+`, and a value's `,` `+` `"`
// `\` `<` `>` `;`, its leading `#` or space and its trailing space are escaped with `\`, so that
// a CN of `odd,O=Admin` is `CN=odd\,O=Admin` and never reads as CN=odd plus O=Admin. Control
// characters (and U+2028, U+2029, which some readers take for line ends) are escaped as \XX
// per UTF-8 byte, so a subject can never split a log line. A value of a type with no string
// form is written `#` and the hex of its DER (RFC 4514 §2.4).
import type { X509Certificate } from "node:crypto";

export interface Subject {
  /** The subject in RFC 4514's form: "CN=ci,O=Example". */
  readonly name: string;
  /** The value of the subject's one CN attribute; undefined when it has none, or more than one. */
  readonly commonName: string | undefined;
}

/** RFC 4514 §3's short names; any other attribute type is written as its OID. */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  "2.5.4.3": "CN",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.6": "C",
  "2.5.4.9": "STREET",
  "0.9.2342.19200300.100.1.25": "DC",
  "0.9.2342.19200300.100.1.1": "UID",
};

const COMMON_NAME = "2.5.4.3";

/** DER tags read here (X.690). */
const TAG = { integer: 0x02, oid: 0x06, sequence: 0x30, set: 0x31, version: 0xa0 } as const;

/** The string types of a directory string and how their bytes decode. */
const STRINGS: ReadonlyMap<number, (bytes: Buffer) => string> = new Map([
  [0x0c, (bytes: Buffer) => bytes.toString("utf8")], // UTF8String
  [0x13, (bytes: Buffer) => bytes.toString("latin1")], // PrintableString
  [0x16, (bytes: Buffer) => bytes.toString("latin1")], // IA5String
  [0x12, (bytes: Buffer) => bytes.toString("latin1")], // NumericString
  [0x1a, (bytes: Buffer) => bytes.toString("latin1")], // VisibleString
  [0x14, (bytes: Buffer) => bytes.toString("latin1")], // TeletexString, read as OpenSSL does
  [0x1e, (bytes: Buffer) => new TextDecoder("utf-16be").decode(bytes)], // BMPString
  [0x1c, utf32be], // UniversalString
]);

/** The certificate's subject; undefined when its DER cannot be read (never for one the TLS stack verified). */
export function subjectOf(certificate: X509Certificate): Subject | undefined {
  try {
    return readSubject(certificate.raw);
  } catch {
    return undefined;
  }
}

/** One DER element: its tag, where its content starts and where it ends. */
interface Element {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

function readSubject(der: Buffer): Subject {
  const certificate = element(der, 0, der.length, TAG.sequence);
  const tbs = element(der, certificate.start, certificate.end, TAG.sequence);
  let at = tbs.start;
  const first = element(der, at, tbs.end);
  if (first.tag === TAG.version) at = first.end;
  at = element(der, at, tbs.end, TAG.integer).end; // serialNumber
  at = element(der, at, tbs.end, TAG.sequence).end; // signature
  at = element(der, at, tbs.end, TAG.sequence).end; // issuer
  at = element(der, at, tbs.end, TAG.sequence).end; // validity
  const name = element(der, at, tbs.end, TAG.sequence);
  const rdns: string[] = [];
  const commonNames: string[] = [];
  for (let rdn = name.start; rdn < name.end;) {
    const set = element(der, rdn, name.end, TAG.set);
    const attributes: string[] = [];
    for (let ava = set.start; ava < set.end;) {
      const pair = element(der, ava, set.end, TAG.sequence);
      const type = element(der, pair.start, pair.end, TAG.oid);
      const value = element(der, type.end, pair.end);
      if (value.end !== pair.end) throw new Error("an attribute has more than a type and a value");
      const oid = oidOf(der.subarray(type.start, type.end));
      const decode = STRINGS.get(value.tag);
      const text = decode === undefined ? undefined : decode(der.subarray(value.start, value.end));
      if (oid === COMMON_NAME && text !== undefined) commonNames.push(text);
      attributes.push(`${SHORT_NAMES[oid] ?? oid}=${text === undefined ? `#${der.subarray(type.end, value.end).toString("hex")}` : escapeValue(text)}`);
      ava = pair.end;
    }
    rdns.push(attributes.join("+"));
    rdn = set.end;
  }
  return { name: rdns.reverse().join(","), commonName: commonNames.length === 1 ? commonNames[0] : undefined };
}

/** The element at `at`, which must end by `limit` (and have `tag`, when given). */
function element(der: Buffer, at: number, limit: number, tag?: number): Element {
  if (at + 2 > limit) throw new Error("the DER ends early");
  const found = der[at] ?? 0;
  if (tag !== undefined && found !== tag) throw new Error(`expected the DER tag ${String(tag)}, found ${String(found)}`);
  let length = der[at + 1] ?? 0;
  let start = at + 2;
  if (length >= 0x80) {
    const bytes = length - 0x80;
    // DER's definite long form, of at most 4 bytes: no certificate is near 4 GiB.
    if (bytes === 0 || bytes > 4 || start + bytes > limit) throw new Error("a DER length that is not definite");
    length = der.readUIntBE(start, bytes);
    start += bytes;
  }
  const end = start + length;
  if (end > limit) throw new Error("a DER element longer than what holds it");
  return { tag: found, start, end };
}

/** An OBJECT IDENTIFIER's dotted form (X.690 §8.19). */
function oidOf(bytes: Buffer): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) !== 0) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs.join(".");
}

function utf32be(bytes: Buffer): string {
  let text = "";
  for (let at = 0; at + 4 <= bytes.length; at += 4) text += String.fromCodePoint(Math.min(bytes.readUInt32BE(at), 0x10ffff));
  return text;
}

const SPECIAL = new Set([",", "+", '"', "\\", "<", ">", ";"]);

/** A value escaped as RFC 4514 §2.4 says, control characters as \XX per UTF-8 byte. */
export function escapeValue(value: string): string {
  let escaped = "";
  let at = 0;
  // By code point: an escaped control character is its UTF-8 bytes.
  for (const char of value) {
    const first = at === 0;
    at += char.length;
    const last = at === value.length;
    if (SPECIAL.has(char) || (first && (char === "#" || char === " ")) || (last && char === " ")) escaped += `\\${char}`;
    else if (isControl(char)) for (const byte of Buffer.from(char, "utf8")) escaped += `\\${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    else escaped += char;
  }
  return escaped;
}

/** C0, DEL, C1, and the line and paragraph separators. */
function isControl(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}
