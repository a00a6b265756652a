/**
 * Scheduled publishing in the editor (a lazy chunk, loaded in publish mode
 * `draft` when the page config names a `schedule` endpoint): "Publish at…" in the edit bar opens a dialog with a time
 * picker in the editor's time zone (sent in UTC) that schedules this
 * page's drafted fields, and lists the schedules (pending and failed, with
 * the reason) with Cancel. Fields of a pending schedule are marked.
 *
 * The state lives in {@linkcode ScheduleModel} and the pure helpers (no
 * DOM; tests drive them); {@linkcode attachSchedule} is the thin view.
 *
 * @module
 */

import type {
  ScheduleAnswer,
  ScheduleEntry,
  ScheduleEventData,
  ScheduleListing,
} from "../core/protocol/mod.ts";
import type { EditBar } from "./bar_types.ts";
import type { Kit } from "./dom.ts";
import { chunkLabels, dateTime, t } from "./labels.ts";
import { fieldName } from "./labels_field.ts";
import { reasonOf, refuse } from "./refusal.ts";
import { THEME } from "./theme.ts";

/**
 * This chunk's labels (English; German when the UI is German). Close,
 * Cancel and "Not published: …" are the shared table's (`t`).
 */
const EN = {
  title: "Publish at a set time",
  when: "Date and time ({zone})",
  fields: "Publishes the drafts of this page: {n}",
  noDrafts: "This page has no drafts to schedule.",
  schedule: "Schedule",
  list: "Scheduled",
  none: "Nothing scheduled.",
  dismiss: "Dismiss",
  at: "{when} · {fields} · {editor}",
  scheduled: "Scheduled for {when}",
  mark: "scheduled",
  badTime: "Choose a date and time in the future.",
  notScheduled: "Not scheduled: {reason}",
};
const DE: typeof EN = {
  title: "Zu einer festen Zeit veröffentlichen",
  when: "Datum und Uhrzeit ({zone})",
  fields: "Veröffentlicht die Entwürfe dieser Seite: {n}",
  noDrafts: "Diese Seite hat keine Entwürfe zum Planen.",
  schedule: "Planen",
  list: "Geplant",
  none: "Nichts geplant.",
  dismiss: "Ausblenden",
  at: "{when} · {fields} · {editor}",
  scheduled: "Geplant für {when}",
  mark: "geplant",
  badTime: "Bitte Datum und Uhrzeit in der Zukunft wählen.",
  notScheduled: "Nicht geplant: {reason}",
};

/** A label of this chunk in the UI's language. */
const scheduleLabel = chunkLabels(EN, DE);

/**
 * The UTC time (ISO 8601) of a `datetime-local` value, read in the
 * browser's time zone; `null` for an empty or invalid value.
 *
 * @example
 * ```ts
 * import { localToUtc } from "./schedule.ts";
 * localToUtc("2030-01-01T09:00"); // with TZ=UTC: "2030-01-01T09:00:00.000Z"
 * ```
 */
export function localToUtc(value: string): string | null {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0));
  const date = new Date(y, mo - 1, d, h, mi, s);
  // A day that does not exist, or a time the zone skips (spring forward),
  // moves; refuse it.
  return utcToLocal(date.getTime()) === value.slice(0, 16)
    ? date.toISOString()
    : null;
}

/**
 * The `datetime-local` value of a time in the browser's time zone (minutes).
 *
 * @example
 * ```ts
 * import { utcToLocal } from "./schedule.ts";
 * utcToLocal(Date.UTC(2030, 0, 1, 9)); // with TZ=UTC: "2030-01-01T09:00"
 * ```
 */
export function utcToLocal(time: number): string {
  const d = new Date(time);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${
    p(d.getHours())
  }:${p(d.getMinutes())}`;
}

/**
 * The default of the picker: the next full hour at least 10 minutes ahead.
 *
 * @example
 * ```ts
 * import { defaultTime } from "./schedule.ts";
 * new Date(defaultTime(Date.UTC(2030, 0, 1, 9, 55))).getUTCMinutes(); // 0
 * ```
 */
export function defaultTime(now: number = Date.now()): number {
  const hour = 3600_000;
  return Math.ceil((now + 10 * 60_000) / hour) * hour;
}

/**
 * The body of a scheduling publish: the fields, the versions the editor
 * sees (a later change by someone else is then a conflict) and `at`.
 * A string is the reason it cannot be sent.
 *
 * @example
 * ```ts
 * import { scheduleBody } from "./schedule.ts";
 * scheduleBody(["pages:home:title"], { "pages:home:title": "v1" }, "", 0);
 * // "badTime"
 * ```
 */
export function scheduleBody(
  fields: string[],
  versions: Record<string, string>,
  local: string,
  now: number = Date.now(),
):
  | { at: string; fields: string[]; versions: Record<string, string> }
  | "badTime"
  | "noDrafts" {
  if (!fields.length) return "noDrafts";
  const at = localToUtc(local);
  if (!at || Date.parse(at) <= now) return "badTime";
  return { at, fields, versions };
}

/** The schedules the editor sees, and which fields they mark. No DOM. */
export class ScheduleModel {
  /** Pending and failed schedules, soonest first. */
  schedules: ScheduleEntry[] = [];

  /** Replaces the list with a listing from the server. */
  set(listing: ScheduleListing): void {
    this.schedules = [...listing.schedules].sort((a, b) =>
      Date.parse(a.at) - Date.parse(b.at)
    );
  }

  /** Adds a schedule just made (pending). */
  added(answer: ScheduleAnswer, editor: string): void {
    this.set({
      schedules: [...this.schedules, {
        ...answer,
        editor,
        created: new Date().toISOString(),
        state: "pending",
      }],
    });
  }

  /** Drops a schedule (cancelled or dismissed). */
  remove(id: string): void {
    this.schedules = this.schedules.filter((s) => s.id !== id);
  }

  /** Field address → the soonest pending schedule that publishes it. */
  marks(): Map<string, ScheduleEntry> {
    const out = new Map<string, ScheduleEntry>();
    for (const s of this.schedules) {
      if (s.state !== "pending") continue;
      for (const f of s.fields) if (!out.has(f)) out.set(f, s);
    }
    return out;
  }
}

/** A field of the page: its address and regions. */
export interface ScheduleField {
  /** The address, e.g. `pages:home:title`. */
  id: string;
  /** Its regions (they carry `data-cms-version`). */
  els: HTMLElement[];
}

const MARK_CSS = (word: string) =>
  `[data-cms-scheduled]{outline:2px dashed #a5b;outline-offset:3px}[data-cms-scheduled]::before{content:${
    JSON.stringify(word)
  };font:11px system-ui;color:#a5b;margin-right:6px}`;

const CSS = `dialog{width:min(30em,calc(100vw - 32px))}
h3{font-size:13px;margin:calc(var(--sp)*1.5) 0 4px}
input{all:unset;box-sizing:border-box;min-height:30px;padding:4px 8px;border:1px solid var(--bd);border-radius:var(--r2);background:var(--bg);color:var(--fg);font:var(--f);font-weight:400}
ul{list-style:none;margin:0;padding:0}
li{display:flex;gap:var(--sp);align-items:center;justify-content:space-between;padding:4px 0}
li .e{margin:0}`;

const headers = { "Content-Type": "application/json" };

/** The session's parts scheduling works with. */
interface Scheduler {
  kit: Kit;
  bar: EditBar;
  /** A sibling of the publish endpoint (`drafts`, `publish`). */
  url(name: string): URL;
  /** The schedule listing endpoint; cancel is its `/cancel`. */
  list: string;
  model: ScheduleModel;
  fields: ScheduleField[];
  byId: Map<string, ScheduleField>;
  editor: string;
}

/** Marks the regions of fields of a pending schedule (with its time). */
function paintMarks({ fields, model }: Scheduler) {
  const marks = model.marks();
  for (const f of fields) {
    const s = marks.get(f.id);
    for (const el of f.els) {
      if (s) {
        el.dataset.cmsScheduled = s.at;
        el.title = scheduleLabel("scheduled", {
          when: dateTime(Date.parse(s.at)),
        });
      } else if (el.dataset.cmsScheduled !== undefined) {
        delete el.dataset.cmsScheduled;
        el.removeAttribute("title");
      }
    }
  }
}

/**
 * Reads the schedules again, following the listing's pages (at most 10:
 * a site keeps at most 500), and marks their fields.
 */
async function refresh(c: Scheduler) {
  const schedules: ScheduleEntry[] = [];
  let next = "";
  for (let n = 0; n < 10; n++) {
    const u = new URL(c.list, location.href);
    if (next) u.searchParams.set("cursor", next);
    const res = await fetch(u).catch(() => null);
    const data = res?.ok && await res.json().catch(() => null);
    if (!Array.isArray(data?.schedules)) return;
    schedules.push(...data.schedules);
    if (!(next = data.next)) break;
  }
  c.model.set({ schedules });
  paintMarks(c);
}

/** This page's drafted fields with the versions the editor sees. */
async function drafted(
  { url, byId }: Scheduler,
): Promise<[string[], Record<string, string>]> {
  const res = await fetch(url("drafts")).catch(() => null);
  const data = res?.ok && await res.json().catch(() => null);
  const drafts: { field: string }[] = data?.drafts ?? [];
  const ids = drafts.map((d) => d.field).filter((id) => byId.has(id));
  const versions: Record<string, string> = {};
  for (const id of ids) {
    const v = byId.get(id)?.els[0]?.dataset.cmsVersion;
    if (v) versions[id] = v;
  }
  return [[...new Set(ids)], versions];
}

/** The dialog's form: time picker, what it publishes, buttons, the list. */
function scheduleForm(h: Kit["h"], drafts: number) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const time = h("input", {
    type: "datetime-local",
    id: "t",
    value: utcToLocal(defaultTime()),
    min: utcToLocal(Date.now()),
  });
  const error = h("p", { class: "e", role: "alert" });
  const list = h("ul", {});
  const submit = h(
    "button",
    { type: "submit", class: "p" },
    scheduleLabel("schedule"),
  );
  const close = h("button", { type: "button" }, t("close"));
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", { id: "h" }, scheduleLabel("title")),
    h("label", { for: "t" }, scheduleLabel("when", { zone }), time),
    h(
      "p",
      {},
      drafts
        ? scheduleLabel("fields", { n: drafts })
        : scheduleLabel("noDrafts"),
    ),
    error,
    h("div", { class: "a" }, close, submit),
    h("h3", {}, scheduleLabel("list")),
    list,
  );
  submit.disabled = !drafts;
  return { time, error, list, submit, close, form };
}

/** A schedule in the list: when, its fields by name, who, why it failed. */
function scheduleRow(
  { kit: { h }, byId }: Scheduler,
  s: ScheduleEntry,
  cancel: HTMLButtonElement,
): HTMLElement {
  const text = scheduleLabel("at", {
    when: dateTime(Date.parse(s.at)),
    fields: s.fields.map((id) => fieldName(id, byId.get(id)?.els[0]))
      .join(", "),
    editor: s.editor,
  });
  return h(
    "li",
    {},
    h(
      "span",
      {},
      text,
      ...(s.reason
        ? [
          h("br", {}),
          h(
            "span",
            { class: "e" },
            t("notPublished", { reason: s.reason }),
          ),
        ]
        : []),
    ),
    cancel,
  );
}

/** Cancels (or dismisses) schedule `id`: `null`, or the reason it failed. */
async function cancelSchedule(c: Scheduler, id: string) {
  const res = await fetch(c.list + "/cancel", {
    method: "POST",
    headers,
    body: JSON.stringify({ id }),
  }).catch(() => null);
  if (res?.ok || res?.status === 404) {
    c.model.remove(id);
    paintMarks(c);
    return null;
  }
  const reason = await reasonOf(res);
  return refuse({
    action: "schedule",
    status: res?.status ?? 0,
    reason,
    message: reason,
  });
}

/**
 * Schedules `body`: `null` when scheduled (marked, and said in the bar),
 * or the reason it was not.
 */
async function sendSchedule(
  c: Scheduler,
  body: Exclude<ReturnType<typeof scheduleBody>, string>,
): Promise<string | null> {
  const res = await fetch(c.url("publish"), {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  }).catch(() => null);
  if (res?.status === 202) {
    c.model.added(await res.json() as ScheduleAnswer, c.editor);
    paintMarks(c);
    c.bar.status(
      "clean",
      scheduleLabel("scheduled", { when: dateTime(Date.parse(body.at)) }),
    );
    return null;
  }
  const reason = await reasonOf(res);
  return refuse({
    action: "schedule",
    status: res?.status ?? 0,
    reason,
    message: scheduleLabel("notScheduled", { reason }),
  });
}

/** Opens the "Publish at…" dialog. */
async function openSchedule(c: Scheduler) {
  const { h, isolate } = c.kit;
  await refresh(c);
  const [ids, versions] = await drafted(c);
  const { host, root } = isolate("cms-schedule", THEME, CSS);
  const { time, error, list, submit, close, form } = scheduleForm(
    h,
    ids.length,
  );
  const dialog = h("dialog", { class: "k", "aria-labelledby": "h" }, form);
  root.append(dialog);
  document.body.append(host);

  function paintList() {
    list.replaceChildren(
      ...(c.model.schedules.length ? [] : [h("li", {}, scheduleLabel("none"))]),
      ...c.model.schedules.map((s) => {
        const cancel = h(
          "button",
          { type: "button" },
          s.state === "failed" ? scheduleLabel("dismiss") : t("cancel"),
        );
        cancel.onclick = async () => {
          const why = await cancelSchedule(c, s.id);
          if (why === null) {
            paintList();
            submit.focus();
          } else error.textContent = why;
        };
        return scheduleRow(c, s, cancel);
      }),
    );
  }
  paintList();

  const finish = () => {
    dialog.close();
    host.remove();
  };
  form.onsubmit = async (e) => {
    e.preventDefault();
    const body = scheduleBody(ids, versions, time.value);
    if (typeof body === "string") {
      error.textContent = scheduleLabel(body);
      time.setAttribute("aria-invalid", "true");
      return time.focus();
    }
    const why = await sendSchedule(c, body);
    if (why === null) return finish();
    error.textContent = why;
  };
  close.onclick = finish;
  dialog.onclose = () => host.remove();
  dialog.onkeydown = (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    e.stopPropagation();
    finish();
  };
  dialog.showModal();
  time.focus();
}

/**
 * Wires scheduling into the session; returns the cleanup. `endpoint` is
 * the publish URL (`drafts` is its sibling); `list` the schedule listing
 * (`/api/cms/schedule`), whose `/cancel` cancels.
 *
 * @example
 * ```ts ignore
 * const off = attachSchedule(
 *   kit, bar, "/api/cms/publish", "/api/cms/schedule", fields, "Ada",
 * );
 * ```
 */
export function attachSchedule(
  kit: Kit,
  bar: EditBar,
  endpoint: string,
  list: string,
  fields: ScheduleField[],
  editor: string,
): () => void {
  const c: Scheduler = {
    kit,
    bar,
    url: (name) => new URL(name, new URL(endpoint, location.href)),
    list,
    model: new ScheduleModel(),
    fields,
    byId: new Map(fields.map((f) => [f.id, f])),
    editor,
  };
  const sheet = kit.sheet(MARK_CSS(scheduleLabel("mark")));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const open = () => void openSchedule(c);
  const remove = bar.add({ label: t("publishAt"), run: open });
  void refresh(c);
  // A publish elsewhere in the session may settle schedules: look again.
  // A schedule that fired (the event stream's `cms:schedule`) too; one that
  // failed is shown with its reason at once.
  const offs = [
    kit.listen(document, "cms:saved", () => void refresh(c)),
    kit.listen<CustomEvent<ScheduleEventData>>(
      document,
      "cms:schedule",
      async ({ detail }) => {
        await refresh(c);
        const s = c.model.schedules.find((s) => s.id === detail.id);
        if (detail.failed && s?.state === "failed") {
          bar.toast(t("notPublished", { reason: s.reason ?? "" }), [{
            label: t("publishAt"),
            run: open,
          }]);
        }
      },
    ),
  ];
  return () => {
    remove();
    offs.forEach((off) => off());
    c.model.schedules = [];
    paintMarks(c);
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) =>
      s !== sheet
    );
  };
}
