/**
 * The marker attributes of a localized field, rendered by the server (the
 * Fresh components) and read by the browser's locale chunk
 * (`client/locales.ts`). Their own module, not the protocol's
 * (`protocol/`): the session chunk imports the protocol too, and a module
 * both import becomes a chunk of its own that every page would fetch.
 *
 * @module
 */

/**
 * The marker attribute that names the locale of a marker's value, beside
 * `data-cms-field` (whose address carries it too, except for the default
 * locale): `<h1 data-cms-field="pages:home:title@de" data-cms-locale="de">`.
 * Absent on shared fields and on sites without locales.
 *
 * @example
 * ```ts
 * import { LOCALE_ATTRIBUTE } from "./locale_markers.ts";
 * const marker = `<h1 data-cms-field="pages:home:title@de" ${LOCALE_ATTRIBUTE}="de">Hallo</h1>`;
 * ```
 */
export const LOCALE_ATTRIBUTE = "data-cms-locale";

/**
 * The marker attribute naming the locale a localized field's value came
 * from when it is not the page's own (a fallback): the editor marks the
 * region "not translated yet".
 *
 * @example
 * ```ts
 * import { FALLBACK_ATTRIBUTE } from "./locale_markers.ts";
 * const marker = `<h1 data-cms-field="pages:home:title@de" data-cms-locale="de" ${FALLBACK_ATTRIBUTE}="en">Hello</h1>`;
 * ```
 */
export const FALLBACK_ATTRIBUTE = "data-cms-fallback";
