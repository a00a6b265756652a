/**
 * The browser client served from the package: the handler for `/cms/*`
 * (GET, HEAD, ETags, types) and the files `deno task build` generated into
 * `_generated.ts`.
 *
 * @module
 */
export {
  type ClientHandler,
  type ClientHandlerOptions,
  createClientHandler,
} from "./handler.ts";
export { CLIENT_FILES } from "./_generated.ts";
