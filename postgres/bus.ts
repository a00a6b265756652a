/**
 * The editor event bus over PostgreSQL `LISTEN`/`NOTIFY`: instances that
 * share a database see each other's editors and saves. Messages carry
 * addresses and names only (never values) and stay under the 8000-byte
 * `NOTIFY` limit (see `server/events/bus.ts`).
 *
 * @module
 */
import type postgres from "postgres";
import {
  type BusMessage,
  decodeMessage,
  encodeMessage,
  type EventBus,
} from "../server/events/mod.ts";

/**
 * A bus over PostgreSQL `LISTEN`/`NOTIFY` on one channel: every instance
 * connected to the database gets every message. The `postgres` client
 * keeps one connection for `LISTEN` and re-listens after a reconnect.
 *
 * @example
 * ```ts ignore
 * import postgres from "postgres";
 * import { PostgresEventBus } from "@inplace/cms/postgres";
 * const sql = postgres("postgres://cms@127.0.0.1/cms");
 * const bus = new PostgresEventBus(sql);
 * await bus.subscribe((m) => console.log(m.type));
 * ```
 */
export class PostgresEventBus implements EventBus {
  readonly #sql: postgres.Sql;
  readonly #channel: string;

  /**
   * A bus on `channel` of the `sql` client (the caller ends the client).
   * The channel name is lowercase letters, digits and `_`.
   */
  constructor(sql: postgres.Sql, channel = "cms_events") {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
      throw new RangeError("channel: lowercase letters, digits and _ only");
    }
    this.#sql = sql;
    this.#channel = channel;
  }

  /** `NOTIFY`s `message` as JSON. */
  async publish(message: BusMessage): Promise<void> {
    await this.#sql.notify(this.#channel, encodeMessage(message));
  }

  /** `LISTEN`s; resolves once listening. Malformed payloads are skipped. */
  async subscribe(
    listener: (message: BusMessage) => void,
  ): Promise<() => void> {
    const { unlisten } = await this.#sql.listen(this.#channel, (payload) => {
      const message = decodeMessage(payload);
      if (message) listener(message);
    });
    return () => void unlisten().catch(() => {});
  }
}
