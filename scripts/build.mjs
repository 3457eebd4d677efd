// Builds every package's dist/, each after the packages it imports: the client (which imports
// none), the contract, the reference Manager, then the gateway. A package is built against the others' dist/ (its
// declarations), as it is when installed, never against their sources. A built checkout is
// ready to pack: the bundled dependencies of its workspace packages are linked where `npm
// pack` looks for them (scripts/link-bundled.mjs).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { linkBundled } from "./link-bundled.mjs";

const tsc = "node_modules/typescript/bin/tsc";

/** The folders that hold a tsconfig.build.json, in build order. */
export const BUILD_ORDER = ["packages/client", "packages/contract", "packages/reference-manager", "."];

/**
 * Where a build records the digest of what it was built from (inputsDigest), written last, so
 * that a build that failed part-way leaves none.
 */
const INPUTS_DIGEST_FILE = "dist/.inputs-digest";

export function build() {
  for (const folder of BUILD_ORDER) {
    rmSync(`${folder}/dist`, { recursive: true, force: true });
    execFileSync(process.execPath, [tsc, "-p", `${folder}/tsconfig.build.json`], { stdio: "inherit" });
  }
  linkBundled();
  const commit = gitCommit();
  // The gateway's --version, start-up line and gateway_build_info read it (src/build-info.ts).
  if (commit !== undefined) writeFileSync("dist/build-info.json", `${JSON.stringify({ commit })}\n`);
  writeFileSync(INPUTS_DIGEST_FILE, `${inputsDigest(commit)}\n`);
}

/**
 * Builds unless every dist/ was built from what the checkout holds now (the same inputs and
 * commit); links the bundled dependencies either way, as an `npm install` since the build
 * removes them. The test run's global setup calls it, so that a run after `npm ci` (whose prepare
 * step builds) or after another run does not build the same thing again.
 */
export function buildIfChanged() {
  const built = existsSync(INPUTS_DIGEST_FILE) ? readFileSync(INPUTS_DIGEST_FILE, "utf8").trim() : undefined;
  if (built !== inputsDigest(gitCommit())) build();
  else linkBundled();
}

/**
 * A digest of everything a build reads: each package's tsconfig files and package.json, the
 * folders its tsconfig.build.json includes, the compiler's version and the commit.
 */
function inputsDigest(commit) {
  const hash = createHash("sha256");
  const add = (path) => {
    hash.update(`${path}\0`);
    hash.update(readFileSync(path));
    hash.update("\0");
  };
  add("tsconfig.json");
  add("node_modules/typescript/package.json");
  for (const folder of BUILD_ORDER) {
    const config = `${folder}/tsconfig.build.json`;
    add(config);
    add(`${folder}/package.json`);
    const { include } = JSON.parse(readFileSync(config, "utf8"));
    for (const root of include) for (const file of filesUnder(join(folder, root))) add(file);
  }
  hash.update(`commit ${commit ?? "none"}`);
  return hash.digest("hex");
}

/** Every file under `folder`, in a stable order. */
function filesUnder(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The commit of the checkout being built; undefined outside a git checkout or without git. */
function gitCommit() {
  try {
    return execFileSync("git", ["rev-parse", "--verify", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) build();
