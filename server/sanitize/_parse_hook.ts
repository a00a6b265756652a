/**
 * The limits counted inside jsdom's own parse, so a value is parsed once.
 *
 * jsdom parses HTML with parse5 (`parse5.parse`, through `Parser.parse`),
 * the same module instance this package imports. While
 * {@linkcode countingNextParse} runs, the next document parse in this
 * thread goes through `countedParse` of `limits.ts`: the counting tokenizer
 * and a counting wrapper around jsdom's own tree adapter. Past a limit the
 * parse stops (DOMPurify, which calls the parser, swallows parser errors, so
 * nothing is thrown inside it) and the refusal is thrown once DOMPurify has
 * returned; the work done on the partial document is bounded by the limits.
 *
 * Whether the hook reaches jsdom's parser is checked once, at start
 * ({@linkcode parseIsCounted}): where it does not (another parse5 version
 * inside jsdom), the sanitizer counts with a parse of its own first.
 *
 * @module
 */
import { Parser, type ParserOptions, type TreeAdapterTypeMap } from "parse5";
import { countedParse, type HtmlLimits, LimitCount } from "./limits.ts";

type CountedOptions = Parameters<typeof countedParse>[2];

/** The count the next document parse goes into, while one is asked for. */
let pending: LimitCount | null = null;
/** The count of the last counted parse, until {@linkcode takeParsed}. */
let parsed: LimitCount | null = null;
let installed = false;

/** The jsdom document internals {@linkcode primeBaseUrl} reads. */
interface JsdomDocumentImpl {
  _baseURLCache: unknown;
  _fallbackBaseURL(): unknown;
}

/**
 * Fills in the base URL of the document jsdom's tree adapter parses into
 * (a `DOMParser` document) before the parse: without it, the first `style`
 * attribute makes jsdom look for `<base href>` with a selector query, which
 * sets up a selector engine for the document and walks what was built so
 * far (about a twentieth of a 10 KB sanitize). A `<base>` element in the
 * value clears the cache as it is inserted, as it always does, so URLs
 * still resolve as before. Does nothing where jsdom's internals differ.
 */
function primeBaseUrl(treeAdapter: unknown): void {
  const doc = (treeAdapter as { _documentImpl?: Partial<JsdomDocumentImpl> })
    ?._documentImpl;
  if (
    doc?._baseURLCache === null && typeof doc._fallbackBaseURL === "function"
  ) {
    doc._baseURLCache = doc._fallbackBaseURL();
  }
}

/** Routes `Parser.parse` through the count while one is pending. */
function install(): void {
  if (installed) return;
  installed = true;
  const original = Parser.parse;
  const counting = function (
    this: typeof Parser,
    html: string,
    options?: ParserOptions<TreeAdapterTypeMap>,
  ) {
    const count = pending;
    parsed = null;
    if (!count) return original.call(this, html, options);
    pending = null;
    primeBaseUrl(options?.treeAdapter);
    const document = countedParse(this, html, options as CountedOptions, count);
    parsed = count;
    return document;
  };
  Parser.parse = counting as typeof Parser.parse;
}

/**
 * Runs `parseAndSanitize` with the next HTML document parse in this thread
 * counted against `limits`; throws the refusal (an `HttpError`) when a
 * limit was passed, and an `Error` when no parse was counted.
 */
export function countingNextParse<T>(
  limits: HtmlLimits,
  parseAndSanitize: () => T,
): T {
  install();
  const count = new LimitCount(limits);
  pending = count;
  let result: T;
  try {
    result = parseAndSanitize();
  } finally {
    pending = parsed = null;
  }
  if (!count.engaged) throw new Error("the HTML parse was not counted");
  if (count.refusal) throw count.refusal;
  return result;
}

/**
 * The count of the document parse that just ended in this thread, if it was
 * counted; each count is handed out once.
 */
export function takeParsed(): LimitCount | null {
  const count = parsed;
  parsed = null;
  return count;
}

/** Whether `parse` (one HTML document parse by jsdom) is counted. */
export function parseIsCounted(parse: () => unknown): boolean {
  try {
    countingNextParse({
      nodes: 1e9,
      attributes: 1e9,
      attributesPerElement: 1e9,
      depth: 1e9,
    }, parse);
    return true;
  } catch {
    return false;
  }
}
