/**
 * The in-place editing session started by `mountCms()`: it wires the page
 * (regions, the edit bar, keys, online/offline) to the {@linkcode Model},
 * which holds every rule about values, drafts, saving, conflicts and retry.
 * Its public types are in `cms_types.ts`.
 *
 * @module
 */

import { addressReader, type FieldAddress } from "../core/address.ts";
import { createBar } from "./bar.ts";
import { type BarRefusals, barRefusals } from "./bar_refusals.ts";
import type { BarAction, EditBar } from "./bar_types.ts";
import { type CmsConfig, readConfig } from "./config.ts";
import type { CmsHandle, MountOptions } from "./cms_types.ts";
import type { Kit } from "./dom.ts";
import { type Labels, t, useLabels } from "./labels.ts";
import { type Marker, readMarker } from "./markers.ts";
import { fieldName } from "./labels_field.ts";
import { createModel, type Field, type Model } from "./model.ts";
import { makePlain, plainEvents } from "./regions.ts";
import { type ImageRegions, imageRegions } from "./image_regions.ts";
import type { RichTextController } from "./rich_types.ts";
import { uploadRefused } from "./refusal.ts";
import { saveField } from "./save.ts";
import { barStatus } from "./status.ts";

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
  /** Refusals in the bar's toast (and status). */
  refusals: BarRefusals;
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
 * `options.labels` named, loaded by the entry.
 *
 * The mount reads the labels and the config, then only listens for the
 * first input: the session opens (model, edit bar, listeners) and the
 * markers become regions in
 * the next tasks (see {@linkcode activate}), or at once at a first input.
 * When no marker is valid, the session ends itself once that is known
 * (`fields` stays 0). A review link's page (`reviewer: true`) gets no
 * regions, only a bar for the review chunk (`fields` is 0).
 */
export function mount(
  kit: Kit,
  options: MountOptions,
  table?: Labels,
): CmsHandle {
  const s = {
    kit,
    cleanups: [],
    alive: true,
    drafts: 0,
    list: [],
  } as unknown as Session;
  s.unmount = () => unmount(s);
  useLabels(
    table ?? (typeof options.labels === "object" ? options.labels : {}),
  );
  const cfg = s.cfg = readConfig(options);
  // A review link's page: no editing, the bar for the review chunk only.
  const ready = cfg.reviewer
    ? Promise.resolve(void (s.bar = createBar(kit, cfg.editor, [])))
    : startEditors(s, activate(s, () => open(s, options)));
  void attachFeatures(s, ready);
  return {
    get fields() {
      return s.list.length;
    },
    ready,
    save: () => ready.then(() => s.model?.save()),
    unmount: s.unmount,
  };
}

/** Opens the session: model, edit bar and listeners. */
function open(s: Session, options: MountOptions): void {
  const { cfg } = s;
  // The model calls back into the session only after an edit or a 409.
  s.model = createSessionModel(s, options.concurrency);
  s.list = s.model.fields as PageField[];
  s.bar = createBar(s.kit, cfg.editor, barActions(s));
  s.render = renderer(s);
  s.images = sessionImages(s);
  s.refusals = barRefusals(s.kit, s.bar, s.render);
  s.cleanups.push(...regionListeners(s), s.refusals.stop);
  renderBarNow(s);
}

/**
 * The lazy chunks of the features the page config asks for, attached once
 * every field is in the model: draft mode (draft marks, Publish and
 * Discard; Publish at… and the schedules), presence and live changes,
 * content checks, review in place (comments), and locales (switcher,
 * untranslated marks and count).
 */
async function attachFeatures(
  s: Session,
  ready: Promise<void>,
): Promise<void> {
  await ready;
  if (!s.alive) return;
  const { kit, cfg, bar } = s;
  // The chunks load in parallel but attach in this order, so the bar's
  // buttons come in the same order on every load.
  let order = Promise.resolve();
  const when = <M>(chunk: Promise<M>, use: (m: M) => () => void) =>
    order = order.then(() => chunk).then(
      (m) => void (s.alive && s.cleanups.push(use(m))),
      (e) => console.warn("cms: a chunk failed to load", e),
    );
  if (cfg.publish) {
    when(import("./publish.ts"), (m) =>
      m.attachPublish(kit, bar, {
        endpoint: cfg.publish,
        view: cfg.exit,
        fields: s.list.map((f) => ({
          id: f.id,
          els: f.els,
          label: fieldName(f.field, f.els[0]),
        })),
        drafts: (n) => (s.drafts = n, s.render()),
      }));
  }
  const { publish, schedule, editor } = cfg;
  if (publish && schedule) {
    when(
      import("./schedule.ts"),
      (m) => m.attachSchedule(kit, bar, publish, schedule, s.list, editor),
    );
  }
  // A reviewer's page has no model: the review chunk opens its stream.
  if (cfg.events && s.model) {
    when(import("./presence_view.ts"), (m) =>
      m.attachPresence(
        kit,
        bar,
        cfg.events,
        s.model,
        (id) => fieldOf(s, id)?.els ?? [],
      ));
  }
  if (cfg.comments) {
    when(import("./review.ts"), (m) => m.attachReview(kit, bar, cfg));
  }
  // Content checks of the rich and image regions, if any: loaded at the
  // first input, so nothing is added to what loads to edit a page.
  const checked = s.list.filter((f) => f.rich || f.image);
  if (checked[0]) {
    addEventListener("input", () =>
      when(
        import("./checks.ts"),
        (m) => m.attachChecks(kit, bar, checked, cfg),
      ), { capture: true, once: true });
  }
  if (cfg.locale && cfg.locales.length) {
    when(
      import("./locales.ts"),
      (m) =>
        m.attachLocales(kit, bar, s.model, s.list, cfg.locale, cfg.locales),
    );
  }
}

/** The image regions of the session: an upload's URL becomes an edit. */
function sessionImages(s: Session): ImageRegions {
  return imageRegions({
    kit: s.kit,
    media: s.cfg.media,
    library: s.cfg.library,
    alive: () => s.alive,
    // The edit paints every region of the field (see `paint`).
    done: (el, url) => s.model.edit(el.getAttribute("data-cms-field")!, url),
    failed: (el, status, reason) =>
      uploadRefused(el.getAttribute("data-cms-field")!, status, reason),
  });
}

/** The model of the session: saves through the save endpoint. */
function createSessionModel(s: Session, concurrency?: number): Model {
  return createModel([], [], {
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
    // Settings unless `settings: false`; History when its endpoint is set.
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
  if (mark === "dirty") s.bar.toast(""); // new changes: the last toast goes
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
  s.bar.status(
    ...barStatus(status, navigator.onLine, s.drafts, s.refusals.text),
  );
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
    fieldName(f.field, f.els[0]),
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
    label: fieldName(f.field, f.els[0]),
    rich: f.rich,
    drafts: !!s.cfg.publish,
    async restore(value) {
      s.model.edit(f.id, value);
      await s.model.save();
      if (f.error) throw t("notRestored", { reason: f.error.reason });
    },
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
  s.model?.destroy();
  s.unguard = void s.unguard?.();
  for (const fn of s.cleanups.splice(0).reverse()) fn();
  const marks = s.kit.sheet(MARKS);
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((x) =>
    x !== marks
  );
  s.images?.close();
  for (const f of s.list) {
    f.editors?.forEach((e) => e?.destroy());
    f.els.forEach((el) => markRegion(el));
  }
  s.bar?.destroy();
}

/** Work per slice of the activation, in ms: a frame keeps time to paint. */
const SLICE = 8;

/** Input that needs the session now: the activation finishes first. */
const URGENT = ["mousedown", "keydown", "dragenter"];

/**
 * Activates the page's markers, idle until urgent: the first slice opens
 * the session (`open`), then each valid marker becomes a region of its
 * field (the first marker of an address makes the field; its content is
 * the stored value), plain regions editable, image regions buttons. Slices
 * of {@linkcode SLICE} ms run in the tasks after the mount, so a long page
 * never blocks it; the first input on the page (capture listeners, added
 * before any other) runs the rest at once, before its own handling.
 * Resolves to the rich regions (their editors are a lazy chunk) once every
 * marker is read, or at unmount.
 */
function activate(
  s: Session,
  open: () => void,
): Promise<[PageField, number][]> {
  const rich: [PageField, number][] = [];
  const parse = addressReader();
  let els: NodeListOf<HTMLElement> | undefined, next = 0;
  let finish!: (r: [PageField, number][]) => void;
  const done = new Promise<[PageField, number][]>((r) => finish = r);
  const run = (budget: number) => {
    clearTimeout(timer);
    const end = performance.now() + budget, plain: HTMLElement[] = [];
    if (!els) {
      open();
      els = document.querySelectorAll<HTMLElement>("[data-cms-field]");
    }
    for (const n = els.length; next < n;) {
      addRegion(s, els[next++], parse, plain, rich);
      if (!(next & 63) && performance.now() > end) break;
    }
    s.cleanups.push(makePlain(plain));
    if (next < els.length) timer = setTimeout(run, 0, SLICE);
    else stop();
  };
  let timer = setTimeout(run, 0, SLICE);
  const offs = URGENT.map((type) =>
    s.kit.listen(document, type, () => run(Infinity), true)
  );
  const stop = () => {
    clearTimeout(timer);
    offs.forEach((off) => off());
    finish(rich);
  };
  s.cleanups.push(stop);
  return done;
}

/**
 * Makes marker `el` a region: of a new field, or of its address's field
 * (a duplicate shows and edits the same value). A malformed marker, or a
 * duplicate of another kind, gets a console warning and stays as it is.
 */
function addRegion(
  s: Session,
  el: HTMLElement,
  parse: (text: string) => FieldAddress | string,
  plain: HTMLElement[],
  rich: [PageField, number][],
): void {
  const m = readMarker(el, parse);
  if (typeof m === "string") {
    return console.warn(`cms: malformed marker (${m})`, el);
  }
  let f = fieldOf(s, m.id);
  if (!f) {
    f = s.model.add(
      m,
      m.image
        ? el.getAttribute("src") ?? ""
        : m.rich
        ? el.innerHTML.trim()
        : el.textContent ?? "",
    ) as PageField;
    f.els = [];
  } else if (f.rich !== m.rich || f.image !== m.image) {
    return console.warn("cms: duplicate marker of another kind", el);
  }
  const i = f.els.push(el) - 1;
  if (f.rich) rich.push([f, i]);
  else if (f.image) s.cleanups.push(s.images.add(el as HTMLImageElement));
  else plain.push(el);
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
      (el) => model.edit(el.dataset.cmsField!, el.textContent ?? ""),
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

/**
 * Once the markers are active: the lists (a lazy chunk), the rich editors
 * (another), then the stored drafts. A page without a valid marker or list
 * ends the session.
 */
async function startEditors(
  s: Session,
  activated: Promise<[PageField, number][]>,
): Promise<void> {
  const rich = await activated;
  // List fields join the model before drafts are restored.
  const m = document.querySelector("[data-cms-list]") &&
    await import("./list.ts");
  if (!s.alive) return;
  const { kit, cfg, model } = s;
  if (m) s.cleanups.push(m.attachLists(kit, model, makePlain, addressReader()));
  if (!s.list.length) return s.unmount();
  if (rich.length) {
    const { attachRich } = await import("./rich.ts");
    if (!s.alive) return;
    for (const [f, i] of rich) {
      (f.editors ??= [])[i] = attachRich(kit, f.els[i], {
        media: cfg.media,
        library: cfg.library,
        mediaBase: cfg.mediaBase || undefined,
        label: f.field,
        onChange: (value) => model.edit(f.id, value),
        onError: (status, reason) => uploadRefused(f.id, status, reason),
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
