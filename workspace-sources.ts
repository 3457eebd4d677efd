// Where vitest finds the workspace packages: their sources, as tsconfig.json's "paths" tell
// TypeScript and tsx, so that a test runs what is in the checkout and not a stale dist/.
import { fileURLToPath } from "node:url";

const packages = fileURLToPath(new URL("./packages/", import.meta.url));

export const WORKSPACE_SOURCES = [
  { find: /^norsk-manager-contract\/(.*)\.js$/, replacement: `${packages}contract/src/$1.ts` },
  { find: /^norsk-reference-manager$/, replacement: `${packages}reference-manager/src/index.ts` },
  { find: /^norsk-reference-manager\/(.*)\.js$/, replacement: `${packages}reference-manager/src/$1.ts` },
  { find: /^norsk-manager-client$/, replacement: `${packages}client/src/index.ts` },
];
