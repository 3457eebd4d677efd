// The document and its browser: Swagger UI at /docs (served from @fastify/swagger-ui's own
// files: no CDN), the document at /openapi.json and /openapi.yaml, Swagger UI's view of it
// (src/openapi/ui-view.ts) at /docs/json and /docs/yaml, where Swagger UI reads it, and / sends
// people to /docs. None of these are operations of the API, so none appear in the document.
// Each is sent compressed, with an ETag (src/http/fixed-answer.ts).
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyPluginAsync } from "fastify";
import { FixedAnswer } from "../http/fixed-answer.js";
import { OPEN_ACCESS } from "../auth/scopes.js";
import { LOGO_FILE, LOGO_SVG, STYLESHEET, STYLESHEET_FILE } from "./docs-theme.js";

/** The page title of Swagger UI for the document titled `title`. */
export function pageTitle(title: string): string {
  return `${title} — API`;
}

export interface DocsOptions {
  /** The document's title, from which Swagger UI's page title is made (pageTitle). */
  readonly title: string;
  /** The document as YAML (src/openapi/yaml.ts), the same text as the committed openapi.yaml. */
  readonly yaml: (document: object) => string;
  /** Swagger UI's view of the document (src/openapi/ui-view.ts), which it reads at /docs/json. */
  readonly view: (document: object) => object;
}

export const docsRoutes: FastifyPluginAsync<DocsOptions> = async (app, { title, yaml, view }) => {
  const json = new FixedAnswer(() => JSON.stringify(app.swagger()), "application/json; charset=utf-8");
  const yamlAnswer = new FixedAnswer(() => yaml(app.swagger()), "application/yaml; charset=utf-8");
  // Swagger UI's own routes for the document, answered here instead with its view (compressed, with an ETag).
  const documents: Record<string, FixedAnswer | undefined> = {
    "/docs/json": new FixedAnswer(() => JSON.stringify(view(app.swagger())), "application/json; charset=utf-8"),
    "/docs/yaml": new FixedAnswer(() => yaml(view(app.swagger())), "application/yaml; charset=utf-8"),
  };

  // Swagger UI's routes take no route options from here: each is declared open as it is added.
  app.addHook("onRoute", (route) => {
    route.config = { ...route.config, ...OPEN_ACCESS };
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    theme: {
      title: pageTitle(title),
      css: [{ filename: STYLESHEET_FILE, content: STYLESHEET }],
      favicon: [{ filename: LOGO_FILE, rel: "icon", type: "image/svg+xml", sizes: "any", content: LOGO_SVG }],
    },
    // Used only with a top bar (StandaloneLayout), which the page has not: given so that no
    // logo but the gateway's is ever sent.
    logo: { type: "image/svg+xml", content: Buffer.from(LOGO_SVG), href: "/docs" },
    uiConfig: {
      // No top bar: neither fastify's logo nor a field to explore another document.
      layout: "BaseLayout",
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
