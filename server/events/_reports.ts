/**
 * Presence reports on any instance: a `POST` of the editor event stream may
 * reach another instance than the one holding its stream (the workers of
 * `deno serve --parallel`, Deno Deploy, a balancer without sticky
 * sessions). The instance that takes it checks the report (its fields,
 * with the poster's rights) and sends it on the bus with a digest of the
 * stream id, the poster's session and editor ({@linkcode ownerProof});
 * the instance holding the stream applies it only when that digest is the
 * stream's own ({@linkcode ReportInbox}), so a report for someone else's
 * stream changes nothing.
 *
 * @module
 */
import { formatAddress } from "../../core/address.ts";
import { Status } from "../../core/protocol/mod.ts";
import { allowedField, hex, HttpError } from "../http/mod.ts";
import type { ReportMessage } from "./bus.ts";
import { type AccessRules, type Listener, may } from "./_access.ts";
import { assemble } from "./_bus_io.ts";
import { encoder } from "./_frame.ts";
import type { Stream } from "./_registry.ts";

/** Most unsaved fields one presence report may name. */
export const MAX_DIRTY = 32;
/** Longest stream id accepted (ids are 16 hex digits). */
const MAX_ID = 64;

/** A presence report as posted, checked. */
export interface Report {
  /** The stream it is about. */
  stream: string;
  /** The field focused, or `null`. */
  focus: string | null;
  /** The fields changed but not saved (no repeats). */
  dirty: string[];
}

/**
 * The stream id a report names; 404 when it names none.
 *
 * @example
 * ```ts
 * import { reportedStream } from "./_reports.ts";
 * reportedStream({ stream: "a1b2", focus: null, dirty: [] }); // "a1b2"
 * ```
 */
export function reportedStream(data: Record<string, unknown>): string {
  const id = data.stream;
  if (typeof id !== "string" || !id || id.length > MAX_ID) {
    throw new HttpError(Status.NotFound, "Unknown stream");
  }
  return id;
}

/**
 * The report in `data` for stream `id`, checked with the poster's rights:
 * 400 for a malformed list or a field not allowlisted, 403 for a field
 * `canEdit` refuses the poster.
 *
 * @example
 * ```ts
 * import { checkReport } from "./_reports.ts";
 * const rules = { allowlist: { pages: { title: "plain" as const } } };
 * const who = { req: new Request("http://x/"), editor: { name: "Ada" }, call: undefined };
 * await checkReport(rules, who, "s1", { focus: null, dirty: ["pages:home:title"] });
 * ```
 */
export async function checkReport(
  rules: AccessRules,
  who: Listener,
  id: string,
  data: Record<string, unknown>,
): Promise<Report> {
  const { focus, dirty } = data;
  if (
    !Array.isArray(dirty) || dirty.length > MAX_DIRTY ||
    (focus !== null && focus !== undefined && typeof focus !== "string")
  ) {
    throw new HttpError(Status.BadRequest, "Invalid dirty list");
  }
  const fields = typeof focus === "string" ? [focus, ...dirty] : dirty;
  for (const field of fields) {
    const address = allowedField(rules.allowlist, field);
    if (!await may(rules, who, formatAddress(address))) {
      throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
    }
  }
  return {
    stream: id,
    focus: typeof focus === "string" ? focus : null,
    dirty: [...new Set(dirty as string[])],
  };
}

/**
 * The digest that ties a report to its stream's owner: of the stream id,
 * the session key and the editor's identity (no credential: the session
 * key is a digest already, and this one is bound to one stream).
 *
 * @example
 * ```ts
 * import { ownerProof } from "./_reports.ts";
 * await ownerProof("a1b2", "session-key", "ada"); // 32 hex digits
 * ```
 */
export async function ownerProof(
  id: string,
  session: string,
  who: string,
): Promise<string> {
  const text = `report\n${id}\n${session}\n${who}`;
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return hex(new Uint8Array(digest, 0, 16));
}

/**
 * Where forwarded reports arrive on the instance holding their stream:
 * parts are joined, the owner checked, and the report handed back to apply
 * (or nothing, for a stream held elsewhere, ended, or not the reporter's).
 *
 * @example
 * ```ts
 * import { ReportInbox } from "./_reports.ts";
 * const inbox = new ReportInbox((id) => undefined);
 * await inbox.take({ type: "report", stream: "s1", owner: "x", focus: null, dirty: [] }); // undefined
 * ```
 */
export class ReportInbox {
  readonly #streams: (id: string) => Stream | undefined;
  readonly #pending = new Map<string, ReportMessage>();

  /** An inbox for the streams `streams` finds (this instance's). */
  constructor(streams: (id: string) => Stream | undefined) {
    this.#streams = streams;
  }

  /** The stream and its report, once whole and proven its owner's. */
  async take(
    message: ReportMessage,
  ): Promise<{ stream: Stream; report: Report } | undefined> {
    // Parts are kept only for streams held here.
    if (!this.#streams(message.stream)) return undefined;
    const whole = assemble(this.#pending, message);
    const stream = whole && this.#streams(whole.stream);
    if (!whole || !stream || stream.closed) return undefined;
    const { focus, dirty } = whole;
    if (
      (focus !== null && typeof focus !== "string") || !Array.isArray(dirty) ||
      whole.owner !== await ownerProof(stream.id, stream.session, stream.who)
    ) return undefined;
    const fields = [...new Set(dirty)].slice(0, MAX_DIRTY);
    return { stream, report: { stream: stream.id, focus, dirty: fields } };
  }

  /** Forgets the parts gathered for stream `id` (it ended). */
  forget(id: string): void {
    this.#pending.delete(id);
  }
}
