/**
 * Liveness and readiness: `/healthz` and `/readyz` handlers and the checks
 * they run against the content store and the media storage.
 *
 * @module
 */
export {
  contentStoreCheck,
  createLivenessHandler,
  createReadinessHandler,
  type HealthCheck,
  mediaStorageCheck,
  type ReadinessOptions,
} from "./checks.ts";
