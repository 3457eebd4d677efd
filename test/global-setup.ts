// Builds every package's dist/ for the test run unless it is built from the checkout as it is
// (scripts/build.mjs, buildIfChanged): the end-to-end tests start the built command (`node
// dist/src/main.js`), exactly what `npm start` and the package's bin run, and it loads the
// embedded Manager from the reference Manager's dist/.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["--input-type=module", "-e", 'import { buildIfChanged } from "./scripts/build.mjs"; buildIfChanged();'], { stdio: "inherit" });
}
