// Makes `npm pack --workspace` bundle what a workspace package's bundleDependencies name
// (docs/operations/deploying.md, "Installing and running"). npm packs a bundled dependency
// only from the packed package's own node_modules (npm/cli#3466), and in a workspace npm
// installs every package at the root, so the workspace's tarball would go out without it.
// Each bundled dependency is linked into the workspace's node_modules, to what the root's
// node_modules holds under that name. The build makes the links (scripts/build.mjs), and the
// reference Manager's prepack again: `npm install` removes them, as links it did not make.
import { lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, symlinkSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The repository's root: this file is in its scripts/. */
const ROOT = resolve(import.meta.dirname, "..");

/** Links each workspace package's bundled dependencies into its node_modules. */
export function linkBundled() {
  const { workspaces = [] } = readManifest(ROOT);
  for (const folder of workspaces) {
    const { bundleDependencies = [] } = readManifest(join(ROOT, folder));
    for (const name of bundleDependencies) link(join(ROOT, folder, "node_modules", name), installedAtRoot(name));
  }
}

function readManifest(folder) {
  return JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
}

/** Where the root's node_modules/<name> leads (a workspace package's folder), or an error saying what is missing. */
function installedAtRoot(name) {
  try {
    return realpathSync(join(ROOT, "node_modules", name));
  } catch {
    throw new Error(`link-bundled: ${name} is not installed at the root (run npm ci)`);
  }
}

/**
 * Makes `path` a relative symbolic link to `target`, unless it is one already. The link is
 * made beside it and renamed over it, so that two packs at once each see a whole link.
 */
function link(path, target) {
  const to = relative(dirname(path), target);
  if (isLinkTo(path, to)) return;
  mkdirSync(dirname(path), { recursive: true });
  const made = `${path}.${String(process.pid)}.link`;
  symlinkSync(to, made);
  renameSync(made, path);
}

function isLinkTo(path, to) {
  try {
    return lstatSync(path).isSymbolicLink() && readlinkSync(path) === to;
  } catch {
    return false;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) linkBundled();
