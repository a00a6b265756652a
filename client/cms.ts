/**
 * The in-place editing session started by `mountCms()`: it wires the page
 * (regions, the edit bar, keys, online/offline) to the {@linkcode Model},
 * which holds every rule about values, drafts, saving, conflicts and retry.
 *
 * @module
 */

import { addressReader } from "../core/address.ts";
import { type BarAction, createBar, type EditBar } from "./bar.ts";
import { type CmsConfig, readConfig } from "./config.ts";
import type { Kit } from "./dom.ts";
import { type Labels, type Language, t, useLabels } from "./labels.ts";
import { fieldLabel, findMarkers, type Marker } from "./markers.ts";
import { createModel, type Field, type Model } from "./model.ts";
import { makePlain, plainEvents } from "./regions.ts";
import { type ImageRegions, imageRegions } from "./image_regions.ts";
import type { RichTextController } from "./rich.ts";
import { saveField } from "./save.ts";
import { barStatus } from "./status.ts";

/** Options of `mountCms`: page config overrides, save concurrency, labels. */
export interface MountOptions extends Partial<CmsConfig> {
  /** Maximum concurrent save requests. Default 64 (see `ModelOptions`). */
  concurrency?: number;
  /**
   * The UI's language: `"en"` (default) or `"de"`, or a partial table whose
   * entries replace the English ones (see `client/labels.ts`).
   */
  labels?: Language | Partial<Labels>;
}

/** A mounted editing session. */
export interface CmsHandle {
  /** Number of fields (duplicate markers count once). 0 when nothing mounted. */
  readonly fields: number;
  /** Resolves once regions, rich editors and restored drafts are in place. */
  readonly ready: Promise<void>;
  /** Saves every changed field; resolves when all requests are answered. */
  save(): Promise<void>;
  /** Restores the page's regions, removes the edit bar and all listeners. */
  unmount(): void;
}

/** A field of this page: the model's field plus its regions. */
interface PageField extends Field, Marker {
  els: HTMLElement[];
  /** Rich editors by region index (rich fields only). */
  editors?: RichTextController[];
  /** Shows the value (list fields: their chunk renders the items). */
  show?: (value: string) => void;
}

/** Dispatches a `cms:*` event on `document`. */
function emit(name: string, detail: unknown): void {
  document.dispatchEvent(new CustomEvent(name, { detail }));
}

// Marks of regions whose field is not clean. A constructed stylesheet on
// the document, added while mounted; it only matches our own attribute.
const MARKS =
  `[data-cms-state]{outline-offset:3px}[data-cms-state=dirty],[data-cms-state=saving]{outline:2px dashed #d92!important}[data-cms-state=error]{outline:2px solid #f55!important}`;

/** Marks a region with its field's state, or removes the marks. */
function markRegion(el: HTMLElement, state?: string): void {
  if (state) el.setAttribute("data-cms-state", state);
  else el.removeAttribute("data-cms-state");
  if (state === "error") el.setAttribute("aria-invalid", "true");
  else el.removeAttribute("aria-invalid");
}

/** One mounted session: what its parts share. */
interface Session {
  kit: Kit;
  cfg: CmsConfig;
  model: Model;
  list: PageField[];
  bar: EditBar;
  images: ImageRegions;
  /** Run at unmount, last first. */
  cleanups: (() => void)[];
  alive: boolean;
  /** Fields with an unpublished draft (draft mode). */
  drafts: number;
  /** Removes the unload guard (set while something is dirty). */
  unguard?: () => void;
  /** The field of the region focused last. */
  focused?: PageField;
  /** Asks for a bar render (once per task). */
  render(): void;
  unmount(): void;
}

/** The field of address `id` (a region's `data-cms-field`). */
const fieldOf = (s: Session, id: string | null) =>
  s.model.get(id ?? "") as PageField;

/** The region an event target belongs to (targets may be inner elements). */
function regionOf(s: Session, target: EventTarget | null) {
  const el = (target as Element | null)?.closest?.("[data-cms-field]");
  const f = el && fieldOf(s, el.getAttribute("data-cms-field"));
  return f && f.els.includes(el as HTMLElement)
    ? { el: el as HTMLElement, f }
    : undefined;
}

/**
 * Starts editing the page's markers (this chunk is loaded by `mountCms` only
 * when the page has a marker). `table` is the shipped table that
 * `options.labels` named, loaded by the entry. Returns `null` when no marker
 * is valid.
 */
export function mount(
  kit: Kit,
  options: MountOptions,
  table?: Labels,
): CmsHandle | null {
  const found = findMarkers();
  const lists = document.querySelector("[data-cms-list]");
  if (!found.length && !lists) return null;
  useLabels(
    table ?? (typeof options.labels === "object" ? options.labels : {}),
  );
  const cfg = readConfig(options);
  // The session is filled in below; the model calls back into it only
  // after mount (paint at an edit, ask at a 409).
  const s = {
    kit,
    cfg,
    cleanups: [],
    alive: true,
    drafts: 0,
  } as unknown as Session;
  s.model = createSessionModel(s, found, options.concurrency);
  s.list = s.model.fields as PageField[];
  linkRegions(s, found);
  s.bar = createBar(kit, cfg.editor, barActions(s));
  s.render = renderer(s);
  s.unmount = () => unmount(s);
  s.images = sessionImages(s);
  // Draft mode: draft marks, Publish and Discard (a lazy chunk).
  if (cfg.publish) {
    import("./publish.ts").then((m) => {
      if (s.alive) {
        s.cleanups.push(m.attachPublish(kit, s.bar, {
          endpoint: cfg.publish,
          view: cfg.exit,
          fields: s.list.map((f) => ({
            id: f.id,
            els: f.els,
            label: fieldLabel(f.field, f.els[0]),
          })),
          drafts(n) {
            s.drafts = n;
            s.render();
          },
        }));
      }
    });
    // Publish at…, scheduled marks and the schedules (a lazy chunk).
    import("./schedule.ts").then((m) => {
      if (s.alive) {
        s.cleanups.push(
          m.attachSchedule(kit, s.bar, cfg.publish, s.list, cfg.editor),
        );
      }
    });
  }
  if (cfg.events) attachPresence(s, cfg.events);
  const rich = makeRegions(s);
  s.cleanups.push(...regionListeners(s));
  const ready = startEditors(
    s,
    rich,
    lists &&
      import("./list.ts").then((m) =>
        s.alive &&
        s.cleanups.push(m.attachLists(kit, s.model, makePlain, addressReader()))
      ),
  );
  // Locales: switcher, untranslated marks and count (a lazy chunk), once
  // every field (lists too) is in the model.
  if (cfg.locale && cfg.locales.length) {
    Promise.all([ready, import("./locales.ts")]).then(([, m]) =>
      s.alive && s.cleanups.push(
        m.attachLocales(kit, s.bar, s.model, s.list, cfg.locale, cfg.locales),
      )
    );
  }
  renderBarNow(s);
  const save = () => s.model.save();
  return { fields: s.list.length, ready, save, unmount: s.unmount };
}

/** The image regions of the session: an upload's URL becomes an edit. */
function sessionImages(s: Session): ImageRegions {
  return imageRegions({
    kit: s.kit,
    media: s.cfg.media,
    alive: () => s.alive,
    done(el, url) {
      const f = fieldOf(s, el.getAttribute("data-cms-field"));
      f.els.forEach((region) => s.images.show(region, url));
      s.model.edit(f.id, url);
    },
    failed: (el, status, reason) =>
      emit("cms:error", {
        field: el.getAttribute("data-cms-field"),
        status,
        reason,
        upload: true,
      }),
  });
}

/** Presence and live changes (a lazy chunk), when the host serves events. */
function attachPresence(s: Session, endpoint: string): void {
  import("./presence_view.ts").then((m) => {
    if (!s.alive) return;
    s.cleanups.push(
      m.attachPresence(
        s.kit,
        s.bar,
        endpoint,
        s.model,
        (id) => fieldOf(s, id)?.els ?? [],
      ),
    );
  });
}

/** The model of the session: saves through the save endpoint. */
function createSessionModel(
  s: Session,
  found: Marker[],
  concurrency?: number,
): Model {
  // The model keeps one field per address: the first marker becomes the
  // field (no copy, no second map: mount is on the hot path).
  const values = found.map(({ el, image, rich }) =>
    image
      ? el.getAttribute("src") ?? ""
      : rich
      ? el.innerHTML.trim()
      : el.textContent ?? ""
  );
  return createModel(found, values, {
    async send(body) {
      const r = await saveField(s.cfg.save, body);
      if (!r.status) {
        r.text = t(navigator.onLine ? "unreachable" : "offlineReason");
      }
      return r;
    },
    drafts: s.kit.drafts(),
    concurrency,
    emit,
    onChange: (f) => paint(s, f as PageField),
    onConflict: (f) => void ask(s, f as PageField),
  });
}

/** Gives each field its regions, in page order. */
function linkRegions(s: Session, found: Marker[]): void {
  for (let i = 0, n = found.length; i < n; i++) {
    (found[i] as PageField).els = [found[i].el];
  }
  // As many fields as markers: no address is marked twice.
  if (s.list.length === found.length) return;
  for (const marker of found) {
    const f = fieldOf(s, marker.id);
    if (f === marker) continue;
    if (f.rich !== marker.rich || f.image !== marker.image) {
      console.warn("cms: duplicate marker of another kind", marker.el);
    } else f.els.push(marker.el);
  }
}

/** The edit bar's buttons. */
function barActions(s: Session): BarAction[] {
  return [
    {
      label: t("save"),
      run: () => void s.model.save(),
      icon: "save",
      primary: true,
      hint: t("saveHint"),
      keys: "Control+S Meta+S",
    },
    // Settings and History only when the page config says they exist.
    ...s.cfg.settings
      ? [
        {
          label: t("settings"),
          run: () => emit("cms:open-drawer", { editor: s.cfg.editor }),
          icon: "settings",
        } as const,
      ]
      : [],
    ...s.cfg.history
      ? [{ label: t("history"), run: () => void showHistory(s) }]
      : [],
    { label: t("done"), run: () => done(s), icon: "done" },
  ];
}

/** Shows `f`'s value, version and state in each of its regions. */
function paint(s: Session, f: PageField): void {
  const { value, version } = f;
  f.els.forEach((el, i) => {
    const editor = f.editors?.[i];
    if (f.show) f.show(value);
    else if (f.image) {
      if (el.getAttribute("src") !== value) s.images.show(el, value);
    } else if (!f.rich) {
      if (el.textContent !== value) el.textContent = value;
    } else if (editor && editor.value !== value) editor.value = value;
    if (version && el.dataset.cmsVersion !== version) {
      el.dataset.cmsVersion = version;
    }
  });
  const mark = f.saving
    ? "saving"
    : f.error
    ? "error"
    : value !== f.base
    ? "dirty"
    : "clean";
  // The marks stylesheet is adopted at the first mark, not at mount: a
  // document stylesheet makes the page recompute every style.
  const marks = s.kit.sheet(MARKS);
  if (!document.adoptedStyleSheets.includes(marks)) {
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, marks];
  }
  f.els.forEach((el) => markRegion(el, mark));
  s.render();
}

/**
 * The bar shows the whole session: rendered once per task, however many
 * fields changed in it (a save of 50 fields is not 50 renders).
 */
function renderer(s: Session): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      if (s.alive) renderBarNow(s);
    });
  };
}

const guard = (e: Event) => e.preventDefault();

/** Renders the bar's status now; guards unload while something is dirty. */
function renderBarNow(s: Session): void {
  const status = s.model.status();
  s.bar.status(...barStatus(status, navigator.onLine, s.drafts));
  // The unload guard exists only while something is dirty (bfcache stays
  // usable, and registering it is not free).
  if (status.dirty) s.unguard ??= s.kit.listen(window, "beforeunload", guard);
  else if (s.unguard) s.unguard = void s.unguard();
}

/** Asks the editor to settle `f`'s conflict. */
async function ask(s: Session, f: PageField): Promise<void> {
  // A list's items as lines, not its JSON.
  const text = (v: string) => f.list ? JSON.parse(v).join("\n") : v;
  const choice = await s.bar.conflict(
    fieldLabel(f.field, f.els[0]),
    text(f.value),
    text(f.conflict!.stored),
  );
  if (s.alive) await s.model.resolve(f.id, choice);
}

/** The history panel (a lazy chunk) of the last focused field. */
async function showHistory(s: Session): Promise<void> {
  const f = s.focused ?? s.list[0];
  const { openHistory } = await import("./history.ts");
  await openHistory(s.kit, s.cfg.history, {
    id: f.id,
    label: fieldLabel(f.field, f.els[0]),
    rich: f.rich,
    restore: (value) => (s.model.edit(f.id, value), s.model.save()),
  });
}

/** Done: leaves edit mode (after a confirm when something is unsaved). */
function done(s: Session): void {
  if (s.model.status().dirty && !confirm(t("confirmDiscard"))) return;
  s.model.dropDrafts();
  s.unmount();
  location.assign(s.cfg.exit);
}

/** Restores the page and removes everything the session added. */
function unmount(s: Session): void {
  if (!s.alive) return;
  s.alive = false;
  s.model.destroy();
  s.unguard = void s.unguard?.();
  for (const fn of s.cleanups.splice(0).reverse()) fn();
  const marks = s.kit.sheet(MARKS);
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((x) =>
    x !== marks
  );
  s.images.close();
  for (const f of s.list) {
    f.editors?.forEach((e) => e?.destroy());
    f.els.forEach((el) => markRegion(el));
  }
  s.bar.destroy();
}

/**
 * Makes the plain regions editable and the image regions buttons; returns
 * the rich regions (their editors are a lazy chunk).
 */
function makeRegions(s: Session): [PageField, number][] {
  const rich: [PageField, number][] = [];
  const plain: HTMLElement[] = [];
  for (const f of s.list) {
    const { els } = f;
    for (let i = 0; i < els.length; i++) {
      if (f.rich) rich.push([f, i]);
      else if (f.image) {
        s.cleanups.push(s.images.add(els[i] as HTMLImageElement));
      } else plain.push(els[i]);
    }
  }
  s.cleanups.push(makePlain(plain));
  return rich;
}

/** One set of delegated listeners for all regions; returns the removers. */
function regionListeners(s: Session): (() => void)[] {
  const { kit: { listen }, model } = s;
  const image = (target: EventTarget | null) => {
    const r = regionOf(s, target);
    return r?.f.image ? r.el as HTMLImageElement : undefined;
  };
  return [
    ...plainEvents(
      s.kit,
      (target) => {
        const r = regionOf(s, target);
        return r && !r.f.rich && !r.f.image ? r.el : undefined;
      },
      (el) =>
        model.edit(fieldOf(s, el.dataset.cmsField!).id, el.textContent ?? ""),
    ),
    listen<KeyboardEvent>(document, "keydown", (k) => onKey(s, k), true),
    listen<MouseEvent>(document, "click", (e) => {
      const el = image(e.target);
      if (!el) return;
      e.preventDefault();
      void s.images.open(el);
    }),
    listen<DragEvent>(document, "dragover", (e) => {
      if (image(e.target) && e.dataTransfer?.types.includes("Files")) {
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
      }
    }),
    listen<DragEvent>(document, "drop", (e) => {
      const el = image(e.target);
      const file = e.dataTransfer?.files[0];
      if (!el || !file) return;
      e.preventDefault();
      void s.images.drop(el, file);
    }),
    listen(window, "online", () => {
      s.render();
      model.retryNow();
    }),
    listen(window, "offline", s.render),
    listen(document, "focusin", (e) => {
      const r = regionOf(s, e.target);
      if (r) s.focused = r.f;
    }),
  ];
}

/** Ctrl/Cmd+S saves; Esc in a region reverts it; Enter/Space on an image
 * opens its panel. */
function onKey(s: Session, k: KeyboardEvent): void {
  const r = regionOf(s, k.target);
  if ((k.ctrlKey || k.metaKey) && k.key.toLowerCase() === "s") {
    k.preventDefault();
    void s.model.save();
  } else if (k.key === "Escape" && r && !k.isComposing) {
    s.model.revert(r.f.id);
  } else if ((k.key === "Enter" || k.key === " ") && r?.f.image) {
    k.preventDefault();
    void s.images.open(r.el as HTMLImageElement);
  }
}

/** Loads the rich editors (a lazy chunk), then restores stored drafts. */
async function startEditors(
  s: Session,
  rich: [PageField, number][],
  lists: Promise<unknown> | null,
): Promise<void> {
  const { cfg, model } = s;
  // List fields join the model before drafts are restored.
  await lists;
  if (rich.length) {
    const { attachRich } = await import("./rich.ts");
    if (!s.alive) return;
    for (const [f, i] of rich) {
      (f.editors ??= [])[i] = attachRich(s.kit, f.els[i], {
        media: cfg.media,
        mediaBase: cfg.mediaBase || undefined,
        label: f.field,
        onChange: (value) => model.edit(f.id, value),
        onError: (status, reason) =>
          emit("cms:error", { field: f.id, status, reason, upload: true }),
      });
    }
  }
  const restored = model.restoreDrafts();
  if (restored[0]) {
    s.bar.toast(t("restored", { n: restored.length }), [{
      label: t("discard"),
      run: () => restored.forEach((f) => model.revert(f.id)),
    }]);
  }
}
