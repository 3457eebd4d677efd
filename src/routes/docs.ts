// The document and its browser: Swagger UI at /docs (served from @fastify/swagger-ui's own
// files: no CDN), the document at /openapi.json and /openapi.yaml, and / sends people to /docs.
// None of these are operations of the API, so none appear in the document.
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyPluginAsync } from "fastify";

export const docsRoutes: FastifyPluginAsync = async (app) => {
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    uiConfig: {
      // Each operation gets a URL (/docs#/jobs/createJob) that can be shared.
      deepLinking: true,
      // Operations open ready to send: parameters and bodies pre-filled with the examples.
      tryItOutEnabled: true,
      displayRequestDuration: true,
    },
  });

  const hidden = { schema: { hide: true } } as const;
  app.get("/openapi.json", hidden, () => app.swagger());
  app.get("/openapi.yaml", hidden, (_request, reply) => reply.type("application/yaml; charset=utf-8").send(app.swagger({ yaml: true })));
  app.get("/", hidden, (_request, reply) => reply.redirect("/docs"));
};
