// A list read a page at a time: `for await (const item of pages)` reads every item of every
// page, following nextPageToken to the end; pages() gives one page at a time, with the token of
// the next, which a caller may keep to resume later from there (the list's pageToken).

export interface Page<T> {
  readonly items: readonly T[];
  /** The token of the next page; undefined on the last. */
  readonly nextPageToken: string | undefined;
}

export class Pages<T> implements AsyncIterable<T> {
  readonly #read: (pageToken: string | undefined) => Promise<Page<T>>;
  readonly #first: string | undefined;

  /** `read` reads the page of a token (undefined: the first); `first` is where to start. */
  constructor(read: (pageToken: string | undefined) => Promise<Page<T>>, first?: string) {
    this.#read = read;
    this.#first = first;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Each page in turn, the next one read only when asked for. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let token = this.#first;
    do {
      const page = await this.#read(token);
      yield page;
      token = page.nextPageToken;
    } while (token !== undefined);
  }

  /** Every item of every page, in one array. */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
