/**
 * Publish mode `draft` in the editor (a lazy chunk, loaded when the page
 * config names a `publish` endpoint): marks the regions of fields with an
 * unpublished draft, tells the session how many there are (the bar reads
 * "N unpublished changes"), and gives the edit bar Publish (the primary
 * button while drafts exist, with the count) and Discard. After a publish a
 * toast names what went live and offers "View as visitor". Publish sends
 * this page's drafted fields with the versions the editor sees, so a draft
 * someone else changed is a 409, never published over. Marks, Publish and
 * the count follow other editors and schedules live (`cms:published`,
 * `cms:drafts` from the event stream). Drafts on other pages are counted in
 * the bar ("2 drafts on other pages"), which opens their list, linked to
 * their pages where the server knows them, with Publish all. The toast
 * after a publish also says how many problems the content checks still find
 * on the page (`cms:checks`). The state is
 * {@linkcode DraftMarks} (no DOM); {@linkcode attachPublish} is the view.
 *
 * @module
 */

import type {
  DiscardBody,
  DraftsListing,
  PublishAnswer,
  PublishBody,
} from "../core/protocol/mod.ts";
import type { EditBar } from "./bar_types.ts";
import type { Kit } from "./dom.ts";
import { dateTime, t } from "./labels.ts";
import { fieldName } from "./labels_field.ts";
import { reasonOf, refuse } from "./refusal.ts";
import { THEME } from "./theme.ts";

/** A field of the page: its address, regions and name. */
export interface PublishField {
  /** The address, e.g. `pages:home:title`. */
  id: string;
  /** Its regions (they carry `data-cms-version`). */
  els: HTMLElement[];
  /** The name people read, e.g. "Title". */
  label: string;
}

/** What draft mode needs from the session. */
export interface PublishOptions {
  /** The publish URL; `drafts` and `discard` are its siblings. */
  endpoint: string;
  /** The page as visitors see it ("View as visitor"). */
  view: string;
  fields: PublishField[];
  /** Called with the number of this page's fields with a draft. */
  drafts(n: number): void;
}

/**
 * The drafted fields of one page, the state part (no DOM): each change
 * answers the fields whose mark turns on or off. Changes come from this
 * editor (a save makes a draft, a publish or discard ends it) and from the
 * editor event stream (`published`, `drafts`: other editors and schedules).
 *
 * @example
 * ```ts
 * import { DraftMarks } from "./publish.ts";
 * const marks = new DraftMarks(["pages:home:title", "pages:home:intro"]);
 * marks.saved("pages:home:title"); // ["pages:home:title"]
 * marks.published(["pages:home:title"]); // ["pages:home:title"]
 * marks.size; // 0
 * ```
 */
export class DraftMarks {
  /** The page's fields: others' drafts are not marked here. */
  readonly #page: Set<string>;
  readonly #drafted = new Set<string>();

  /** No field drafted yet, of the fields `page`. */
  constructor(page: Iterable<string>) {
    this.#page = new Set(page);
  }

  /** How many of the page's fields have a draft. */
  get size(): number {
    return this.#drafted.size;
  }

  /** The drafted fields of the page. */
  get fields(): string[] {
    return [...this.#drafted];
  }

  /** Whether `id` has a draft. */
  has(id: string): boolean {
    return this.#drafted.has(id);
  }

  /** `id` was saved (a draft now); answers what changed. */
  saved(id: string): string[] {
    return this.set([...this.#drafted, id]);
  }

  /** `ids` went live; answers what changed. */
  published(ids: Iterable<string>): string[] {
    const gone = new Set(ids);
    return this.set([...this.#drafted].filter((id) => !gone.has(id)));
  }

  /** Exactly `ids` are drafted now (a listing, a `drafts` event). */
  set(ids: Iterable<string>): string[] {
    const next = new Set([...ids].filter((id) => this.#page.has(id)));
    const changed = [
      ...[...this.#drafted].filter((id) => !next.has(id)),
      ...[...next].filter((id) => !this.#drafted.has(id)),
    ];
    this.#drafted.clear();
    for (const id of next) this.#drafted.add(id);
    return changed;
  }
}

/** The draft marks; the mark's word comes from the labels table. */
const mark = (word: string) =>
  `[data-cms-draft]{outline:2px dotted #1d4ed8;outline-offset:3px}[data-cms-draft]::after{content:${
    JSON.stringify(word)
  };font:11px system-ui;color:#1d4ed8;margin-left:6px}`;

const headers = { "Content-Type": "application/json" };

/** The view's state: the session's parts and the draft marks. */
interface View {
  kit: Kit;
  bar: EditBar;
  options: PublishOptions;
  byId: Map<string, PublishField>;
  drafted: DraftMarks;
  /** The bar's Publish and Discard, removed on each render. */
  removers: (() => void)[];
  /** Whether a `drafts` event (newer, the full set) came. */
  live: boolean;
  /** Drafts of fields not on this page (with their page, when known). */
  others: DraftsListing["drafts"];
  /** The content checks' findings on the page (`cms:checks`). */
  problems: number;
}

/** A sibling of the publish endpoint (`drafts`, `discard`). */
const url = (v: View, name: string) =>
  new URL(name, new URL(v.options.endpoint, location.href));

/** Paints the marks of `changed` fields. */
function paint(v: View, changed: string[]) {
  for (const id of changed) {
    v.byId.get(id)?.els.forEach((el) => {
      if (v.drafted.has(id)) el.dataset.cmsDraft = "";
      else delete el.dataset.cmsDraft;
    });
  }
}

/** Paints `changed` fields, and the bar when any changed. */
function apply(v: View, changed: string[]) {
  paint(v, changed);
  if (changed.length) render(v);
}

/** The bar's Publish (primary, with the count) and Discard. */
function render(v: View) {
  v.removers.forEach((r) => r());
  v.removers = [];
  const n = v.drafted.size, others = v.others.length;
  v.options.drafts(n);
  if (others) {
    v.removers.push(v.bar.add({
      label: t("otherPages", { n: others }),
      run: () => void openOthers(v),
    }));
  }
  if (!n) return;
  v.removers.push(
    v.bar.add({
      label: t("publish", { n }),
      icon: "done",
      primary: true,
      run: () => void publish(v),
    }),
    v.bar.add({ label: t("discardDrafts"), run: () => void discard(v) }),
  );
}

/**
 * Publishes the page's drafts (`all`: every draft of the site); a toast
 * names what went live.
 */
async function publish(v: View, all = false) {
  const { bar, byId, drafted } = v;
  bar.status("saving", t("publishing"));
  const published = await publishDrafts(
    url(v, "publish"),
    all ? null : drafted.fields,
    byId,
  ).catch((r: [number, string, string]) =>
    void refuse({
      action: "publish",
      status: r[0],
      reason: r[1],
      message: r[2],
    })
  );
  if (published) {
    gone(v, published);
    apply(v, drafted.published(published));
    const fields = published.map((id) => byId.get(id)?.label ?? fieldName(id));
    // What the content checks still find is said with what went live.
    const n = v.problems;
    bar.toast(
      t("publishedToast", { fields: fields.join(", ") }) +
        (n ? ` ${t("problems", { n })}.` : ""),
      [{
        label: t("viewAsVisitor"),
        run: () => void open(v.options.view, "_blank", "noopener"),
      }],
    );
  }
  render(v);
}

const CSS = `dialog{width:min(34em,calc(100vw - 32px))}
ul{list-style:none;margin:0 0 var(--sp);padding:0;max-height:50vh;overflow:auto}
li{padding:4px 0;overflow-wrap:anywhere}
a{color:var(--a)}`;

/**
 * The drafts on other pages: each by name, linked to its page when the
 * server knows it, with who and when; Publish all publishes every draft.
 */
function openOthers(v: View) {
  const { h, isolate } = v.kit;
  const { host, root } = isolate("cms-drafts", THEME, CSS);
  const title = t("otherPages", { n: v.others.length });
  const all = v.drafted.size + v.others.length;
  const close = h("button", { type: "button" }, t("close"));
  const publishAll = h("button", { class: "p" }, t("publishAll", { n: all }));
  const dialog = h(
    "dialog",
    { class: "k", "aria-label": title },
    h("h2", {}, title),
    h(
      "ul",
      {},
      ...v.others.map((d) => {
        const name = fieldName(d.field);
        const where = d.field.split(":").slice(0, 2).join(" / ");
        return h(
          "li",
          {},
          d.page ? h("a", { href: d.page }, name) : name,
          h(
            "span",
            { class: "m" },
            ` · ${d.page ?? where} · ${d.editor} · ${
              dateTime(Date.parse(d.at))
            }`,
          ),
        );
      }),
    ),
    h("div", { class: "a" }, close, publishAll),
  );
  const finish = () => (dialog.close(), host.remove());
  close.onclick = finish;
  dialog.onclose = () => host.remove();
  publishAll.onclick = () => {
    finish();
    void publish(v, true);
  };
  root.append(dialog);
  document.body.append(host);
  dialog.showModal();
}

/** Discards the page's drafts (after a confirm), then reloads. */
async function discard(v: View) {
  if (!confirm(t("confirmDiscardDrafts", { n: v.drafted.size }))) return;
  for (const id of v.drafted.fields) {
    const res = await fetch(url(v, "discard"), {
      method: "POST",
      headers,
      body: JSON.stringify({ field: id } satisfies DiscardBody),
    }).catch(() => null);
    if (!res?.ok) {
      const reason = await reasonOf(res);
      refuse({
        action: "discard",
        field: id,
        status: res?.status ?? 0,
        reason,
        message: `${t("notDiscarded")}: ${reason}`,
      });
      return render(v);
    }
    apply(v, v.drafted.published([id]));
  }
  // Show the published values again.
  location.reload();
}

/**
 * Live: this editor's saves, and the editor event stream's `published` and
 * `drafts` (other editors, schedules) as `cms:published` and `cms:drafts`.
 * Returns the removers.
 */
function follow(v: View): (() => void)[] {
  type Fields = CustomEvent<{ fields: string[] }>;
  const { kit, drafted } = v;
  return [
    kit.listen<CustomEvent<unknown[]>>(
      document,
      "cms:checks",
      ({ detail }) => v.problems = detail.length,
    ),
    kit.listen<CustomEvent<{ field: string }>>(
      document,
      "cms:saved",
      ({ detail }) => apply(v, drafted.saved(detail.field)),
    ),
    kit.listen<Fields>(
      document,
      "cms:published",
      (
        { detail },
      ) => (gone(v, detail.fields), apply(v, drafted.published(detail.fields))),
    ),
    kit.listen<Fields>(
      document,
      "cms:drafts",
      (
        { detail },
      ) => (v.live = true,
        gone(
          v,
          v.others.map((d) => d.field).filter((f) =>
            !detail.fields.includes(f)
          ),
        ),
        apply(v, drafted.set(detail.fields))),
    ),
  ];
}

/** Drops `fields` from the drafts on other pages (published, discarded). */
function gone(v: View, fields: string[]) {
  const before = v.others.length;
  v.others = v.others.filter((d) => !fields.includes(d.field));
  if (v.others.length !== before) render(v);
}

/**
 * The listing counts unless a `drafts` event (newer, the full set) came;
 * drafts of fields not on this page are the other pages'.
 */
async function list(v: View) {
  const res = await fetch(url(v, "drafts")).catch(() => null);
  if (!res?.ok) return;
  const { drafts } = await res.json() as DraftsListing;
  v.others = drafts.filter((d) => !v.byId.has(d.field));
  if (v.others.length) render(v);
  if (!v.live) {
    apply(
      v,
      v.drafted.set([...v.drafted.fields, ...drafts.map((d) => d.field)]),
    );
  }
}

/** Wires drafts into the session; returns the cleanup. */
export function attachPublish(
  kit: Kit,
  bar: EditBar,
  options: PublishOptions,
): () => void {
  const byId = new Map(options.fields.map((f) => [f.id, f]));
  const v: View = {
    kit,
    bar,
    options,
    byId,
    drafted: new DraftMarks(byId.keys()),
    removers: [],
    live: false,
    others: [],
    problems: 0,
  };
  const sheet = kit.sheet(mark(t("draftMark")));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const offs = follow(v);
  list(v);
  return () => {
    offs.forEach((off) => off());
    v.removers.forEach((r) => r());
    paint(v, v.drafted.set([]));
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) =>
      s !== sheet
    );
  };
}

/**
 * Publishes `list` with the versions the editor sees, so a draft someone
 * else changed is a 409, never published over (`null`: every draft the
 * editor may publish). Resolves with what went live; rejects with the
 * status, the reason and the text to show.
 */
async function publishDrafts(
  to: URL,
  list: string[] | null,
  byId: Map<string, PublishField>,
): Promise<string[]> {
  const versions: Record<string, string> = {};
  for (const id of list ?? []) {
    const v = byId.get(id)?.els[0]?.dataset.cmsVersion;
    if (v) versions[id] = v;
  }
  const res = await fetch(to, {
    method: "POST",
    headers,
    body: JSON.stringify(
      (list ? { fields: list, versions } : {}) satisfies PublishBody,
    ),
  }).catch(() => null);
  if (res?.ok) {
    const { published } = await res.json() as PublishAnswer;
    return published;
  }
  const reason = await reasonOf(res);
  throw [
    res?.status ?? 0,
    reason,
    // A version conflict is JSON; a plain reason (approval needed) shows.
    res?.status === 409 && reason === "HTTP 409"
      ? t("notPublishedConflict")
      : t("notPublished", { reason }),
  ];
}
