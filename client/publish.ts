/**
 * Publish mode `draft` in the editor (a lazy chunk, loaded when the page
 * config names a `publish` endpoint): marks the regions of fields with an
 * unpublished draft, tells the session how many there are (the bar reads
 * "N unpublished changes"), and gives the edit bar Publish (the primary
 * button while drafts exist, with the count) and Discard. After a publish a
 * toast names what went live and offers "View as visitor". Publish sends this page's drafted fields with the versions the
 * editor sees, so a draft someone else changed is a 409, never published
 * over.
 *
 * @module
 */

import type { EditBar } from "./bar.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";

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

/** The draft marks; the mark's word comes from the labels table. */
const mark = (word: string) =>
  `[data-cms-draft]{outline:2px dotted #1d4ed8;outline-offset:3px}[data-cms-draft]::after{content:${
    JSON.stringify(word)
  };font:11px system-ui;color:#1d4ed8;margin-left:6px}`;

const headers = { "Content-Type": "application/json" };

/** Wires drafts into the session; returns the cleanup. */
export function attachPublish(
  kit: Kit,
  bar: EditBar,
  options: PublishOptions,
): () => void {
  const url = (name: string) =>
    new URL(name, new URL(options.endpoint, location.href));
  const byId = new Map(options.fields.map((f) => [f.id, f]));
  const drafted = new Set<string>();
  const sheet = kit.sheet(mark(t("draftMark")));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  let removers: (() => void)[] = [];

  function setMark(id: string, on: boolean) {
    if (on) drafted.add(id);
    else drafted.delete(id);
    byId.get(id)?.els.forEach((el) => {
      if (on) el.dataset.cmsDraft = "";
      else delete el.dataset.cmsDraft;
    });
  }

  function render() {
    removers.forEach((r) => r());
    removers = [];
    options.drafts(drafted.size);
    if (!drafted.size) return;
    removers.push(
      bar.add({
        label: t("publish", { n: drafted.size }),
        icon: "done",
        primary: true,
        run: () => void publish(),
      }),
      bar.add({ label: t("discardDrafts"), run: () => void discard() }),
    );
  }

  async function publish() {
    bar.status("saving", t("publishing"));
    const published = await publishDrafts(url("publish"), [...drafted], byId)
      .catch((why: string) => void bar.status("error", why));
    if (published) {
      published.forEach((id) => setMark(id, false));
      const fields = published.map((id) => byId.get(id)?.label ?? id);
      bar.toast(
        t("publishedToast", { fields: fields.join(", ") }),
        [{
          label: t("viewAsVisitor"),
          run: () => void open(options.view, "_blank", "noopener"),
        }],
      );
    }
    render();
  }

  async function discard() {
    if (!confirm(t("confirmDiscardDrafts", { n: drafted.size }))) return;
    for (const id of [...drafted]) {
      const res = await fetch(url("discard"), {
        method: "POST",
        headers,
        body: JSON.stringify({ field: id }),
      }).catch(() => null);
      if (!res?.ok) {
        bar.status("error", t("notDiscarded"));
        return render();
      }
      setMark(id, false);
    }
    // Show the published values again.
    location.reload();
  }

  const off = kit.listen<CustomEvent<{ field: string }>>(
    document,
    "cms:saved",
    ({ detail }) => {
      setMark(detail.field, true);
      render();
    },
  );
  (async () => {
    const res = await fetch(url("drafts")).catch(() => null);
    if (!res?.ok) return;
    const { drafts } = await res.json() as { drafts: { field: string }[] };
    for (const d of drafts) if (byId.has(d.field)) setMark(d.field, true);
    render();
  })();

  return () => {
    off();
    removers.forEach((r) => r());
    for (const id of [...drafted]) setMark(id, false);
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) =>
      s !== sheet
    );
  };
}

/**
 * Publishes `list` with the versions the editor sees, so a draft someone
 * else changed is a 409, never published over. Resolves with what went
 * live; rejects with the status text to show.
 */
async function publishDrafts(
  to: URL,
  list: string[],
  byId: Map<string, PublishField>,
): Promise<string[]> {
  const versions: Record<string, string> = {};
  for (const id of list) {
    const v = byId.get(id)?.els[0]?.dataset.cmsVersion;
    if (v) versions[id] = v;
  }
  const res = await fetch(to, {
    method: "POST",
    headers,
    body: JSON.stringify({ fields: list, versions }),
  }).catch(() => null);
  if (res?.ok) {
    const { published } = await res.json() as { published: string[] };
    return published;
  }
  throw res?.status === 409 ? t("notPublishedConflict") : t("notPublished", {
    reason: res ? await res.text() : t("offlineReason"),
  });
}
