// What makes Swagger UI's page the gateway's own: its logo (served beside the stylesheet, and
// the page's icon) and the stylesheet that shows it before the document's title. The page has
// no top bar (src/routes/docs.ts), so no fastify logo and no address field; the stylesheet also
// hides the address Swagger UI prints under the title, which is its view of the document
// (src/openapi/ui-view.ts): the description links the document itself.

/** The logo's file name, under /docs/static/theme/. */
export const LOGO_FILE = "logo.svg";

/** The gateway's logo: an N whose strokes run through a gate. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48" role="img" aria-label="Norsk Manager Gateway">
<rect width="48" height="48" rx="10" fill="#16324f"/>
<path d="M14 35V13l20 22V13" fill="none" stroke="#ffffff" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>
<path d="M6 24h5M37 24h5" stroke="#49cc90" stroke-width="3" stroke-linecap="round"/>
</svg>
`;

/** The stylesheet's file name, under /docs/static/theme/. */
export const STYLESHEET_FILE = "gateway.css";

/** The logo before the title; no address under it. */
export const STYLESHEET = `.swagger-ui .info .title::before {
  content: "";
  display: inline-block;
  width: 1.4em;
  height: 1.4em;
  margin-right: 0.4em;
  vertical-align: -0.25em;
  background: url("${LOGO_FILE}") no-repeat center / contain;
}
.swagger-ui .info hgroup.main a.link {
  display: none;
}
`;
