/**
 * In-place content editing for server-rendered Deno sites: the host side.
 *
 * @module
 */
export * from "./server/types.ts";
export * from "./server/version.ts";
