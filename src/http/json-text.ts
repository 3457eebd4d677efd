// The JSON text of a message, made once however many answers send it: a read shared by many
// requests (src/operations/shared-calls/calls.ts) is serialized once for all of them.

/** What fastify sends for a JSON answer; an answer written here says the same. */
export const JSON_UTF8 = "application/json; charset=utf-8";

export class JsonTextCache<M extends object> {
  readonly #texts = new WeakMap<M, string>();

  /**
   * `stringify` writes the JSON object `toJson` makes of a message (the route's compiled
   * response serializer). A message must not change once its text is made.
   */
  constructor(
    private readonly stringify: (json: unknown) => string,
    private readonly toJson: (message: M) => unknown,
  ) {}

  of(message: M): string {
    let text = this.#texts.get(message);
    if (text === undefined) {
      text = this.stringify(this.toJson(message));
      this.#texts.set(message, text);
    }
    return text;
  }
}
