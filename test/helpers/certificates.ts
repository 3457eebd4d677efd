// Certificates made for a test run by Debian's openssl: two unrelated CAs, and leaf
// certificates signed by the first (a server's with the names given, a client's). Each is
// valid for two days; the files are PEM, in a temporary folder removed by `remove()`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Pem {
  readonly cert: string;
  readonly key: string;
}

export interface Certificates {
  readonly dir: string;
  /** The CA that signed `server` and `client`. */
  readonly ca: Pem;
  /** A CA that signed nothing here: trusting it alone must fail. */
  readonly otherCa: Pem;
  readonly server: Pem;
  readonly client: Pem;
  read(path: string): Buffer;
  remove(): void;
}

const KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function openssl(dir: string, args: readonly string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

function makeCa(dir: string, name: string): Pem {
  const pem = { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
  openssl(dir, ["req", "-x509", ...KEY, "-days", "2", "-subj", `/CN=${name}`, "-keyout", pem.key, "-out", pem.cert]);
  return pem;
}

function makeLeaf(dir: string, name: string, ca: Pem, extensions: string, subject = `/CN=${name}`): Pem {
  const pem = { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
  const csr = join(dir, `${name}.csr`);
  openssl(dir, ["req", "-new", ...KEY, "-utf8", "-multivalue-rdn", "-subj", subject, "-keyout", pem.key, "-out", csr]);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, `${extensions}\n`);
  openssl(dir, ["x509", "-req", "-in", csr, "-CA", ca.cert, "-CAkey", ca.key, "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", pem.cert]);
  return pem;
}

/** `serverNames`: the DNS names (and IP addresses, written as such) of the server certificate. */
export function makeCertificates(serverNames: readonly string[]): Certificates {
  const dir = mkdtempSync(join(tmpdir(), "gateway-certs-"));
  const ca = makeCa(dir, "ca");
  const otherCa = makeCa(dir, "other-ca");
  const names = serverNames.map((name) => (/^[0-9.:]+$/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(",");
  const server = makeLeaf(dir, "server", ca, `subjectAltName=${names}\nextendedKeyUsage=serverAuth`);
  const client = makeLeaf(dir, "client", ca, "extendedKeyUsage=clientAuth");
  return {
    dir,
    ca,
    otherCa,
    server,
    client,
    read: (path) => readFileSync(path),
    remove: () => { rmSync(dir, { recursive: true, force: true }); },
  };
}

export interface ClientCertificateOptions {
  /** The subject's CN: the subject is /CN=<commonName>, unless `subject` is given. */
  readonly commonName?: string;
  /**
   * The whole subject as openssl's -subj takes it: RDNs each after a `/`, the first written
   * first, `+` between the attributes of one RDN (`\+` for a plus sign, `\/` for a slash).
   * Default: /CN=<commonName>.
   */
  readonly subject?: string;
  /** The CA that signs it: `certs.ca`, `certs.otherCa`. */
  readonly signer: Pem;
  /** The files' name in `certs.dir`, unique among the certificates made there. */
  readonly file: string;
}

/** One more client certificate (extendedKeyUsage clientAuth), in `certs.dir`. */
export function makeClientCertificate(certs: Certificates, options: ClientCertificateOptions): Pem {
  return makeLeaf(certs.dir, options.file, options.signer, "extendedKeyUsage=clientAuth", options.subject ?? `/CN=${options.commonName ?? options.file}`);
}
