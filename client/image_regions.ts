/**
 * Image regions of the editing session (`<img data-cms-type="image">`):
 * each is a focusable button; a click, Enter or Space opens the image field
 * panel (a lazy chunk), a dropped file replaces the image. Remembers the
 * attributes each region had at mount and those of each upload, so a value
 * (a URL) is shown with its size and `srcset`.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type { ImageFieldTarget } from "./image_field.ts";
import { t } from "./labels.ts";

/** The `<img>` attributes an image field's value decides. */
const IMAGE_ATTRS = ["src", "width", "height", "srcset", "sizes"];

/** What the image regions need from the session. */
export interface ImageSession {
  kit: Kit;
  /** Media endpoint URL. */
  media: string;
  /** Media library endpoint URL, or `""`: none. */
  library: string;
  /** Whether the session is still mounted. */
  alive(): boolean;
  /** A new image is stored for region `el`: its field's value is `url`. */
  done(el: HTMLImageElement, url: string): void;
  /** An upload for region `el` failed (status 0 = network). */
  failed(el: HTMLImageElement, status: number, reason: string): void;
}

/** The session's image regions, made by {@linkcode imageRegions}. */
export interface ImageRegions {
  /** Makes `el` an image region; returns the function undoing it. */
  add(el: HTMLImageElement): () => void;
  /** Shows the image at `url` in region `el`. */
  show(el: HTMLElement, url: string): void;
  /** Opens the image field panel of `el`. */
  open(el: HTMLImageElement): Promise<void>;
  /** Replaces `el`'s image with `file`. */
  drop(el: HTMLImageElement, file: File): Promise<void>;
  /** Closes the panel, if open. */
  close(): void;
}

/** Attributes by name; `null` for an absent one. */
type Attrs = Record<string, string | null>;

/** `el`'s attributes `names` (`null`: absent). */
function readAttrs(el: HTMLElement, names: string[]): Attrs {
  return Object.fromEntries(names.map((name) => [name, el.getAttribute(name)]));
}

/** Sets `attrs` on `el` (`null` removes one). */
function writeAttrs(el: HTMLElement, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null) el.removeAttribute(name);
    else el.setAttribute(name, value);
  }
}

/** Every image attribute absent: the base of a value's attributes. */
const NO_IMAGE: Attrs = Object.fromEntries(
  IMAGE_ATTRS.map((name) => [name, null]),
);

/**
 * Creates the image regions of a session.
 *
 * @example
 * ```ts ignore
 * const images = imageRegions({ kit, media, alive, done, failed });
 * cleanups.push(images.add(img));
 * ```
 */
export function imageRegions(session: ImageSession): ImageRegions {
  /** The attributes each region had at mount (Esc brings them back). */
  const shown = new Map<HTMLElement, Attrs>();
  /** The attributes of each image uploaded in this session, by URL. */
  const uploaded = new Map<string, Attrs>();
  let closePanel: (() => void) | undefined;
  const chunk = () => import("./image_field.ts");
  const target = (el: HTMLImageElement): ImageFieldTarget => ({
    el,
    media: session.media,
    library: session.library,
    done(url, attrs) {
      uploaded.set(url, { src: url, ...attrs });
      session.done(el, url);
    },
    failed: (status, reason) => session.failed(el, status, reason),
  });
  return {
    add(el) {
      shown.set(el, readAttrs(el, IMAGE_ATTRS));
      const button = {
        tabindex: "0",
        role: "button",
        "aria-label": t("changeImage"),
      };
      const before = readAttrs(el, Object.keys(button));
      writeAttrs(el, button);
      return () => writeAttrs(el, before);
    },
    show(el, url) {
      const mounted = shown.get(el);
      writeAttrs(el, {
        ...NO_IMAGE,
        ...url === mounted?.src ? mounted : uploaded.get(url) ?? { src: url },
      });
    },
    async open(el) {
      const m = await chunk();
      if (session.alive()) {
        closePanel = m.openImageField(session.kit, target(el));
      }
    },
    drop: (el, file) => chunk().then((m) => m.replaceImage(target(el), file)),
    close: () => closePanel?.(),
  };
}
