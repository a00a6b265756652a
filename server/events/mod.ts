/**
 * The editor event stream: server-sent events of saves, publishes, drafts,
 * schedules and presence, the bus contract that carries them between
 * processes and its in-memory bus (the PostgreSQL bus is in `postgres/`).
 *
 * @module
 */
export {
  EditorEvents,
  type EditorEventsOptions,
  type EditorEventsStats,
} from "./streams.ts";
export {
  type BusMessage,
  type CommentsMessage,
  type DraftsMessage,
  type EventBus,
  MemoryEventBus,
  type PresenceMessage,
  type PublishedMessage,
  type SavedMessage,
  type ScheduleMessage,
} from "./bus.ts";
export { decodeMessage, encodeMessage } from "./bus.ts";
