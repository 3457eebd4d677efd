// The document and its browser: Swagger UI at /docs (served from @fastify/swagger-ui's own
// files: no CDN), the document at /openapi.json and /openapi.yaml (and at /docs/json and
// /docs/yaml, where Swagger UI reads it), and / sends people to /docs. None of these are
// operations of the API, so none appear in the document. The document is sent compressed,
// with an ETag (src/http/fixed-answer.ts).
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyPluginAsync } from "fastify";
import { FixedAnswer } from "../http/fixed-answer.js";
import { OPEN_ACCESS } from "../auth/scopes.js";

export interface DocsOptions {
  /** The page title of Swagger UI: the document's own. */
  readonly title: string;
  /** The document as YAML (src/openapi/yaml.ts), the same text as the committed openapi.yaml. */
  readonly yaml: (document: object) => string;
}

export const docsRoutes: FastifyPluginAsync<DocsOptions> = async (app, { title, yaml }) => {
  const json = new FixedAnswer(() => JSON.stringify(app.swagger()), "application/json; charset=utf-8");
  const yamlAnswer = new FixedAnswer(() => yaml(app.swagger()), "application/yaml; charset=utf-8");
  // Swagger UI's own routes for the document, answered here instead (compressed, with an ETag).
  const documents: Record<string, FixedAnswer | undefined> = { "/docs/json": json, "/docs/yaml": yamlAnswer };

  // Swagger UI's routes take no route options from here: each is declared open as it is added.
  app.addHook("onRoute", (route) => {
    route.config = { ...route.config, ...OPEN_ACCESS };
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    theme: { title },
    uiConfig: {
      // Each operation gets a URL (/docs#/jobs/createJob) that can be shared.
      deepLinking: true,
      // Operations open ready to send: parameters and bodies pre-filled with the examples.
      tryItOutEnabled: true,
      displayRequestDuration: true,
    },
    uiHooks: {
      onRequest: (request, reply, done) => {
        const answer = documents[request.routeOptions.url ?? ""];
        if (answer === undefined) done();
        else answer.send(request, reply);
      },
    },
  });

  const hidden = { schema: { hide: true }, config: OPEN_ACCESS } as const;
  app.get("/openapi.json", hidden, (request, reply) => json.send(request, reply));
  app.get("/openapi.yaml", hidden, (request, reply) => yamlAnswer.send(request, reply));
  app.get("/", hidden, (_request, reply) => reply.redirect("/docs"));
};
