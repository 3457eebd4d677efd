// `npm run docs:config`: writes docs/reference/configuration.md from the configuration schema
// (src/config.ts). Run it after changing a setting, and commit the result;
// test/config-reference.test.ts fails while the committed file differs from what is generated.
import { writeFile } from "node:fs/promises";
import { CONFIGURATION_REFERENCE_PATH, configurationReference } from "../src/config-reference.js";

const target = new URL(`../${CONFIGURATION_REFERENCE_PATH}`, import.meta.url);
await writeFile(target, configurationReference());
process.stdout.write(`wrote ${target.pathname}\n`);
