/**
 * The old path of the wire protocol, kept so existing imports still work:
 * every name is re-exported from `core/protocol/mod.ts`, where the protocol
 * is declared one module per endpoint. Import from there.
 *
 * @module
 */
export * from "./protocol/mod.ts";
