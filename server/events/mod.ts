/**
 * The editor event stream: server-sent events of saves, publishes, drafts,
 * schedules and presence, the bus contract that carries them between
 * processes, its in-memory bus and its Deno KV bus (the PostgreSQL bus is
 * in `postgres/`).
 *
 * @module
 */
export {
  EditorEvents,
  type EditorEventsOptions,
  type EditorEventsStats,
} from "./streams.ts";
export {
  type BusListener,
  type BusMessage,
  type CommentsMessage,
  type DraftsMessage,
  type EventBus,
  type LogPosition,
  MemoryEventBus,
  type PresenceMessage,
  type PublishedMessage,
  type ReportMessage,
  type SavedMessage,
  type ScheduleMessage,
} from "./bus.ts";
export { decodeMessage, encodeMessage } from "./bus.ts";
export { KvEventBus, type KvEventBusOptions } from "./kv_bus.ts";
