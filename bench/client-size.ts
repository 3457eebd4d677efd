// npm run bench:client-size: what norsk-manager-client costs a browser page, from the built
// dist/ (npm run build): the whole client bundled and minified as a bundler would (esbuild,
// which tsx and vitest install), raw and gzip-compressed; the same for a page that imports only
// createClient (what tree-shaking leaves); and the packed tarball. Sizes, so no rounds.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ENTRY = "packages/client/dist/index.js";

async function bundled(contents: string): Promise<Uint8Array> {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error("esbuild wrote nothing");
  return output.contents;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

const whole = await bundled(`export * from "./${ENTRY}";`);
const createOnly = await bundled(`import { createClient } from "./${ENTRY}"; globalThis.client = createClient({ baseUrl: location.origin });`);
const folder = mkdtempSync(join(tmpdir(), "client-size-"));
try {
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--workspace", "norsk-manager-client", "--ignore-scripts", "--json", "--pack-destination", folder], { encoding: "utf8" })) as [{ filename: string; entryCount: number }];
  process.stdout.write(`whole client, minified: ${kb(whole.length)}, gzip ${kb(gzipSync(whole).length)}\n`);
  process.stdout.write(`createClient alone, minified: ${kb(createOnly.length)}, gzip ${kb(gzipSync(createOnly).length)}\n`);
  process.stdout.write(`tarball: ${kb(statSync(join(folder, packed.filename)).size)}, ${String(packed.entryCount)} files\n`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
