/**
 * The browser-safe ground floor shared by the client, the server and the
 * Fresh helpers: the field-address grammar, the content declaration, the
 * wire protocol and the sanitizer policy. No Deno APIs, no DOM.
 *
 * @example
 * ```ts
 * import { defineContent, formatAddress, list, parseAddress } from "@inplace/cms/core";
 * export const content = defineContent({
 *   pages: { title: "plain", body: "rich", hero: "image", features: list() },
 * });
 * const address = parseAddress("pages:home:features.1");
 * if (typeof address !== "string") formatAddress(address); // "pages:home:features.1"
 * ```
 *
 * @module
 */
export * from "./address.ts";
export * from "./content.ts";
export * from "./wire.ts";
export * from "./sanitizer.ts";
