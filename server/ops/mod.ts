/**
 * Running in production: structured logs, OpenTelemetry spans and metrics,
 * and graceful serving (drain on SIGTERM/SIGINT).
 *
 * @module
 */
export {
  errorFacts,
  log,
  type Logger,
  type LogLevel,
  type LogLine,
  type LogRecord,
  setLogger,
} from "./log.ts";
export {
  type GracefulServer,
  isDraining,
  onDrain,
  serveGracefully,
  type ServeGracefullyOptions,
  type ServeHandler,
} from "./serve.ts";
export {
  recordEndpoint,
  saveOutcome,
  traced,
  traceSanitize,
} from "./telemetry.ts";
