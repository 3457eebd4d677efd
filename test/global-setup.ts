// Builds every package's dist/ once per test run (scripts/build.mjs): the end-to-end tests
// start the built command (`node dist/src/main.js`), exactly what `npm start` and the
// package's bin run, and it loads the embedded Manager from the reference Manager's dist/.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
