// `npm run openapi`: writes openapi.yaml at the repository root from the route schemas. Run it
// after changing a route or a schema, and commit the result; test/openapi/document.test.ts
// fails while the committed file differs from what the app generates.
import { writeFile } from "node:fs/promises";
import { generateOpenApiYaml } from "../src/openapi-yaml.js";

const target = new URL("../openapi.yaml", import.meta.url);
await writeFile(target, await generateOpenApiYaml());
process.stdout.write(`wrote ${target.pathname}\n`);
