// A client certificate's subject as RFC 4514 writes it (src/auth/distinguished-name.ts), read
// from certificates openssl makes for this run: a CN that looks like two RDNs stays one value,
// RDNs come last first, the special characters and the leading and trailing ones are escaped,
// control characters and line separators become \XX bytes, multi-valued RDNs keep their `+`,
// and a subject of two CNs has no common name to look an entry up by.
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeValue, subjectOf } from "../../src/auth/distinguished-name.js";
import { makeCertificates, makeClientCertificate } from "../helpers/certificates.js";
import type { Certificates } from "../helpers/certificates.js";

let certs: Certificates;

beforeAll(() => {
  certs = makeCertificates(["localhost"]);
});

afterAll(() => {
  certs.remove();
});

let made = 0;

/** The subject the gateway reads from a certificate openssl made with `-subj subject`. */
function subjectMadeWith(subject: string) {
  made += 1;
  const pem = makeClientCertificate(certs, { subject, signer: certs.ca, file: `dn-${String(made)}` });
  return subjectOf(new X509Certificate(certs.read(pem.cert)));
}

describe("the subject of a client certificate, in RFC 4514's form", () => {
  it("keeps a CN of `odd,O=Admin` one value: CN=odd\\,O=Admin, never CN=odd plus O=Admin", () => {
    expect(subjectMadeWith("/CN=odd,O=Admin")).toEqual({ name: "CN=odd\\,O=Admin", commonName: "odd,O=Admin" });
  });

  it("writes a subject of two RDNs, O=Admin then CN=odd, last first: CN=odd,O=Admin, a name the one above cannot have", () => {
    expect(subjectMadeWith("/O=Admin/CN=odd")).toEqual({ name: "CN=odd,O=Admin", commonName: "odd" });
  });

  it("escapes , + \" \\ < > ; anywhere, and a leading space or # and a trailing space", () => {
    expect(subjectMadeWith('/CN= #lead;trail"<>\\\\ ')).toEqual({ name: 'CN=\\ #lead\\;trail\\"\\<\\>\\\\\\ ', commonName: ' #lead;trail"<>\\ ' });
    expect(subjectMadeWith("/CN=#x")?.name).toBe("CN=\\#x");
  });

  it("writes a control character and U+2028 as \\XX bytes, so that a subject cannot split a log line", () => {
    expect(subjectMadeWith("/CN=line1\nline2")?.name).toBe("CN=line1\\0Aline2");
    expect(subjectMadeWith("/CN=a\u2028b")?.name).toBe("CN=a\\E2\\80\\A8b");
  });

  it("keeps a multi-valued RDN's attributes together with +, and writes UTF-8 as it is", () => {
    expect(subjectMadeWith("/O=Org+OU=u1/OU=u2/CN=ü\\+x")).toEqual({ name: "CN=ü\\+x,OU=u2,OU=u1+O=Org", commonName: "ü+x" });
  });

  it("names RFC 4514's attribute types by their short names and any other by its OID", () => {
    expect(subjectMadeWith("/DC=example/DC=com/UID=u7/emailAddress=a@b.c/CN=x")?.name).toBe("CN=x,1.2.840.113549.1.9.1=a@b.c,UID=u7,DC=com,DC=example");
  });

  it("has no common name for a subject of two CNs", () => {
    expect(subjectMadeWith("/CN=a/CN=b")).toEqual({ name: "CN=b,CN=a", commonName: undefined });
  });
});

describe("escapeValue", () => {
  it("escapes NUL, DEL and a C1 control (U+0085) by their UTF-8 bytes, and leaves = and other text alone", () => {
    expect(escapeValue("a\u0000b\u007fc\u0085d=e")).toBe("a\\00b\\7Fc\\C2\\85d=e");
  });

  it("escapes a value of one space once, and leaves an empty value empty", () => {
    expect(escapeValue(" ")).toBe("\\ ");
    expect(escapeValue("")).toBe("");
  });
});
