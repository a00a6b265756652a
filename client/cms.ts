/**
 * The in-place editing session started by `mountCms()`: it wires the page
 * (regions, the edit bar, keys, online/offline) to the {@linkcode Model},
 * which holds every rule about values, drafts, saving, conflicts and retry.
 *
 * @module
 */

import { type BarAction, type BarState, createBar } from "./bar.ts";
import { type CmsConfig, readConfig } from "./config.ts";
import type { Kit } from "./dom.ts";
import {
  type Labels,
  type Language,
  relative,
  t,
  useLabels,
} from "./labels.ts";
import { findMarkers, type Marker } from "./markers.ts";
import { createModel, type Field } from "./model.ts";
import { makePlain, plainEvents } from "./regions.ts";
import type { ImageFieldTarget } from "./image_field.ts";
import type { RichTextController } from "./rich.ts";
import { saveField } from "./save.ts";

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
}

/** Dispatches a `cms:*` event on `document`. */
function emit(name: string, detail: unknown): void {
  document.dispatchEvent(new CustomEvent(name, { detail }));
}

// Marks of regions whose field is not clean. A constructed stylesheet on
// the document, added while mounted; it only matches our own attribute.
const MARKS =
  `[data-cms-state]{outline-offset:3px}[data-cms-state=dirty],[data-cms-state=saving]{outline:2px dashed #d92!important}[data-cms-state=error]{outline:2px solid #f55!important}`;

/** The `<img>` attributes an image field's value decides. */
const IMAGE_ATTRS = ["src", "width", "height", "srcset", "sizes"];

/** Marks a region with its field's state, or removes the marks. */
function markRegion(el: HTMLElement, state?: string): void {
  if (state) el.setAttribute("data-cms-state", state);
  else el.removeAttribute("data-cms-state");
  if (state === "error") el.setAttribute("aria-invalid", "true");
  else el.removeAttribute("aria-invalid");
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
  if (!found.length) return null;
  const { listen, sheet } = kit;
  useLabels(
    table ?? (typeof options.labels === "object" ? options.labels : {}),
  );
  const cfg = readConfig(options);

  // The model keeps one field per address: the first marker becomes the
  // field (no copy, no second map: mount is on the hot path).
  const values = found.map(({ el, image, rich }) =>
    image
      ? el.getAttribute("src") ?? ""
      : rich
      ? el.innerHTML.trim()
      : el.textContent ?? ""
  );
  const model = createModel(found, values, {
    async send(body) {
      const r = await saveField(cfg.save, body);
      if (!r.status) {
        r.text = t(navigator.onLine ? "unreachable" : "offlineReason");
      }
      return r;
    },
    drafts: kit.drafts(),
    concurrency: options.concurrency,
    emit,
    onChange: (f) => paint(f as PageField),
    onConflict: (f) => void ask(f as PageField),
  });
  const list = model.fields as PageField[];
  const fieldOf = (id: string | null) => model.get(id ?? "") as PageField;
  // Each field's regions, in page order.
  for (const marker of found) {
    const f = fieldOf(marker.id);
    if (f === marker) f.els = [marker.el];
    else if (f.rich !== marker.rich || f.image !== marker.image) {
      console.warn("cms: duplicate marker of another kind", marker.el);
    } else f.els.push(marker.el);
  }

  const marks = sheet(MARKS);
  const adopted = () => document.adoptedStyleSheets;
  const cleanups: (() => void)[] = [
    () => document.adoptedStyleSheets = adopted().filter((s) => s !== marks),
  ];
  let alive = true;
  let unguard: (() => void) | undefined;
  const guard = (e: Event) => e.preventDefault();

  const actions: BarAction[] = [
    {
      label: t("save"),
      run: () => void model.save(),
      icon: "save",
      primary: true,
      hint: t("saveHint"),
      keys: "Control+S Meta+S",
    },
    {
      label: t("settings"),
      run: () => emit("cms:open-drawer", { editor: cfg.editor }),
      icon: "settings",
    },
    { label: t("history"), run: () => void showHistory() },
    { label: t("done"), run: done, icon: "done" },
  ];
  const bar = createBar(kit, cfg.editor, actions);
  // Draft mode: draft marks, Publish and Discard (a lazy chunk).
  if (cfg.publish) {
    import("./publish.ts").then((m) => {
      if (alive) cleanups.push(m.attachPublish(kit, bar, cfg.publish, list));
    });
    import("./schedule.ts").then((m) => {
      if (alive) {
        cleanups.push(
          m.attachSchedule(kit, bar, cfg.publish, list, cfg.editor),
        );
      }
    });
  }

  /** Shows `f`'s value, version and state in each of its regions. */
  function paint(f: PageField) {
    const { value, version } = f;
    f.els.forEach((el, i) => {
      const editor = f.editors?.[i];
      if (f.image) {
        if (el.getAttribute("src") !== value) {
          showImage(el, value === shown.get(el)?.src ? shown.get(el)! : value);
        }
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
    if (!adopted().includes(marks)) {
      document.adoptedStyleSheets = [...adopted(), marks];
    }
    f.els.forEach((el) => markRegion(el, mark));
    render();
  }

  // The bar shows the whole session: rendered once per task, however many
  // fields changed in it (a save of 50 fields is not 50 renders).
  let queued = false;
  function render() {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      if (alive) renderBar();
    });
  }
  function renderBar() {
    const { dirty, saving, failed, removed } = model.status();
    const e = failed?.error;
    const reason = e?.status === 409 ? t("changedElsewhere") : e?.reason ?? "";
    const [state, text]: [BarState, string] = !navigator.onLine
      ? ["offline", t("offline")]
      : saving
      ? ["saving", t("saving")]
      : failed?.retryAt
      ? ["error", t("retrying", { reason, when: relative(failed.retryAt) })]
      : failed
      ? ["error", t("notSaved", { reason })]
      : dirty
      ? ["unsaved", t("unsaved", { n: dirty })]
      : ["clean", removed ? t("cleanRemoved", { n: removed }) : t("clean")];
    bar.status(state, text);
    // The unload guard exists only while something is dirty (bfcache stays
    // usable, and registering it is not free).
    if (dirty) unguard ??= listen(window, "beforeunload", guard);
    else if (unguard) unguard = void unguard();
  }

  async function ask(f: PageField) {
    const choice = await bar.conflict(f.id, f.value, f.conflict!.stored);
    if (alive) await model.resolve(f.id, choice);
  }

  /** The history panel (a lazy chunk) of the last focused field. */
  async function showHistory() {
    const f = focused ?? list[0];
    const { openHistory } = await import("./history.ts");
    await openHistory(kit, cfg.history, {
      id: f.id,
      rich: f.rich,
      restore: (value) => (model.edit(f.id, value), model.save()),
    });
  }

  function done() {
    if (model.status().dirty && !confirm(t("confirmDiscard"))) return;
    model.dropDrafts();
    unmount();
    location.assign(cfg.exit);
  }

  function unmount() {
    if (!alive) return;
    alive = false;
    model.destroy();
    unguard?.();
    for (const fn of cleanups.splice(0).reverse()) fn();
    closePanel?.();
    for (const f of list) {
      f.editors?.forEach((e) => e?.destroy());
      f.els.forEach((el) => markRegion(el));
    }
    bar.destroy();
  }

  // Image fields: the `<img>` is the region; the panel is a lazy chunk.
  /** The attributes each image region had at mount (Esc brings them back). */
  const shown = new Map<HTMLElement, Record<string, string>>();
  /** The attributes of each image uploaded in this session, by URL. */
  const uploaded = new Map<string, Record<string, string>>();
  let closePanel: (() => void) | undefined;
  const imageChunk = () => import("./image_field.ts");
  function makeImage(el: HTMLImageElement) {
    const before: Record<string, string | null> = {};
    const kept: Record<string, string> = {};
    for (const name of IMAGE_ATTRS) {
      const v = el.getAttribute(name);
      if (v !== null) kept[name] = v;
    }
    shown.set(el, kept);
    const a11y = {
      tabindex: "0",
      role: "button",
      "aria-label": t("changeImage"),
    };
    for (const [name, value] of Object.entries(a11y)) {
      before[name] = el.getAttribute(name);
      el.setAttribute(name, value);
    }
    return () => {
      for (const [name, value] of Object.entries(before)) {
        if (value === null) el.removeAttribute(name);
        else el.setAttribute(name, value);
      }
    };
  }
  /**
   * Shows `image` (attributes, or a URL whose size is unknown here, e.g. a
   * restored draft) in the `<img>` region `el`.
   */
  function showImage(el: HTMLElement, image: Record<string, string> | string) {
    const attrs = typeof image === "string"
      ? uploaded.get(image) ?? { src: image }
      : image;
    for (const name of IMAGE_ATTRS) el.removeAttribute(name);
    for (const [name, value] of Object.entries(attrs)) {
      el.setAttribute(name, value);
    }
  }
  function imageTarget(el: HTMLImageElement): ImageFieldTarget {
    const f = regionField(el);
    return {
      el,
      media: cfg.media,
      done(url, attrs) {
        uploaded.set(url, { src: url, ...attrs });
        f.els.forEach((region) => showImage(region, url));
        model.edit(f.id, url);
      },
      failed: (status, reason) =>
        emit("cms:error", { field: f.id, status, reason, upload: true }),
    };
  }
  async function imagePanel(el: HTMLImageElement) {
    const m = await imageChunk();
    if (alive) closePanel = m.openImageField(kit, imageTarget(el));
  }

  // Regions: one set of delegated listeners for all plain regions.
  const rich: [PageField, number][] = [];
  const plain: HTMLElement[] = [];
  let focused: PageField | undefined;
  /** The field of a region (looked up at events, not stored at mount). */
  const regionField = (el: Element) =>
    fieldOf(el.getAttribute("data-cms-field"));
  /** The region an event target belongs to (targets may be inner elements). */
  const regionOf = (target: EventTarget | null) => {
    const el = (target as Element | null)?.closest?.("[data-cms-field]");
    const f = el && regionField(el);
    return f && f.els.includes(el as HTMLElement)
      ? el as HTMLElement
      : undefined;
  };
  for (const f of list) {
    const { els } = f;
    for (let i = 0; i < els.length; i++) {
      if (f.rich) rich.push([f, i]);
      else if (f.image) cleanups.push(makeImage(els[i] as HTMLImageElement));
      else plain.push(els[i]);
    }
  }
  cleanups.push(makePlain(plain));
  cleanups.push(
    ...plainEvents(
      kit,
      (target) => {
        const el = regionOf(target);
        const f = el && regionField(el);
        return f && !f.rich && !f.image ? el : undefined;
      },
      (el) => model.edit(regionField(el).id, el.textContent ?? ""),
    ),
    listen<KeyboardEvent>(document, "keydown", (k) => {
      const el = regionOf(k.target);
      if ((k.ctrlKey || k.metaKey) && k.key.toLowerCase() === "s") {
        k.preventDefault();
        void model.save();
      } else if (k.key === "Escape" && el && !k.isComposing) {
        model.revert(regionField(el).id);
      } else if (
        (k.key === "Enter" || k.key === " ") && el && regionField(el).image
      ) {
        k.preventDefault();
        void imagePanel(el as HTMLImageElement);
      }
    }, true),
    listen<MouseEvent>(document, "click", (e) => {
      const el = regionOf(e.target);
      if (el && regionField(el).image) {
        e.preventDefault();
        void imagePanel(el as HTMLImageElement);
      }
    }),
    listen<DragEvent>(document, "dragover", (e) => {
      const el = regionOf(e.target);
      if (
        el && regionField(el).image && e.dataTransfer?.types.includes("Files")
      ) {
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
      }
    }),
    listen<DragEvent>(document, "drop", (e) => {
      const el = regionOf(e.target);
      const file = e.dataTransfer?.files[0];
      if (!el || !regionField(el).image || !file) return;
      e.preventDefault();
      void imageChunk().then((m) =>
        m.replaceImage(imageTarget(el as HTMLImageElement), file)
      );
    }),
    listen(window, "online", () => {
      render();
      model.retryNow();
    }),
    listen(window, "offline", render),
    listen(document, "focusin", (e) => {
      const el = regionOf(e.target);
      if (el) focused = regionField(el);
    }),
  );

  const ready = (async () => {
    if (rich.length) {
      const { attachRich } = await import("./rich.ts");
      if (!alive) return;
      for (const [f, i] of rich) {
        (f.editors ??= [])[i] = attachRich(kit, f.els[i], {
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
      bar.notice(
        t("restored", { n: restored.length }),
        () => restored.forEach((f) => model.revert(f.id)),
      );
    }
  })();

  renderBar();
  return { fields: list.length, ready, save: () => model.save(), unmount };
}
