/**
 * The rich text editor's types: its options and controller (public, from
 * `client/mod.ts`), and what its view parts and lazy panels get of it
 * (`RichEditor`, `RichCore`, `ImageTools`). Types only: it imports nothing
 * of the editor (`rich.ts`) or the modules that use these types, so they
 * all depend on it and not on each other.
 *
 * @module
 */

import type { Kit } from "./dom.ts";
import type { History } from "./undo.ts";

/** Options of `mountRichText` and `RichText`. */
export interface RichTextOptions {
  /** Initial HTML (sanitized). Default: the element's current content. */
  value?: string;
  /** Media endpoint for images. Default `/api/cms/media`. */
  media?: string;
  /** Media library endpoint; `""` (default): no "Choose from library". */
  library?: string;
  /** Public base URL of uploaded media (e.g. `/media/`): pasted or set
   * HTML keeps `srcset` only under it. Default: learned from the first
   * upload's answer. */
  mediaBase?: string;
  /** Accessible name of the editor and its toolbar. Default "Rich text". */
  label?: string;
  /** Called with the new value after every edit by the user. */
  onChange?: (value: string) => void;
  /** Called when an image upload fails (status 0 = network). */
  onError?: (status: number, reason: string) => void;
}

/** Controls one mounted rich text editor. */
export interface RichTextController {
  /** The editable element. */
  readonly element: HTMLElement;
  /** Current HTML (trimmed `innerHTML`, without the `<p>` Chromium and
   * WebKit wrap around a new list). Setting it sanitizes it first, and is one undo
   * step. */
  value: string;
  /** Subscribes to user edits; returns an unsubscribe function. */
  onChange(cb: (value: string) => void): () => void;
  /** Removes the toolbar and listeners; the element keeps its content. */
  destroy(): void;
}

/**
 * What the lazy panels (link, image tools) get from the editor they belong
 * to. Internal: only this package's chunks use it.
 */
export interface RichEditor {
  kit: Kit;
  /** The region. */
  el: HTMLElement;
  /** The toolbar's shadow root (the alt text dialog lives there). */
  root: ShadowRoot;
  /** The media endpoint. */
  media: string;
  /** The media library endpoint, or `""`: none. */
  library: string;
  /** The region's last selection, if any. */
  range(): Range | undefined;
  /** Focuses the region and puts its last selection back. */
  restore(): void;
  /** Shows `panel` under the toolbar buttons (one at a time); Escape in
   * it closes it. */
  show(panel: HTMLElement): void;
  /** Hides the panel and gives the region its focus back. */
  close(): void;
  /** Runs a scripted change as one undo step, then reports the value. */
  change(fn: () => void): void;
  /** Opens the file picker; resolves with the chosen image, if any. */
  pick(): Promise<File | undefined>;
  /** Uploads an image; resolves with the `<img>` attributes, or undefined
   * after reporting the failure. */
  upload(file: File, alt: string): Promise<Record<string, string> | void>;
}

/**
 * The editor's own state and the view parts it is made of. Internal: the
 * toolbar and upload modules of the rich chunk use it.
 */
export interface RichCore extends RichEditor {
  options: RichTextOptions;
  history: History;
  /** Where pasted or set HTML may keep `srcset` (see `mediaBase`). */
  base: string;
  /** The value last reported (or set from outside). */
  last: string;
  /** Image uploads under way (the progress bar shows while any is). */
  uploads: number;
  /** Reports the value when it changed. */
  notify(): void;
  /** Notes the region's selection (kept for the toolbar and panels). */
  remember(): void;
  /** Undo (-1) or redo (1). */
  undo(delta: -1 | 1): void;
  /** Cleans `html` with the policy; the sanitizer loads at the first call. */
  clean(html: string): Promise<string>;
  /** Runs a browser editing command on the selection. */
  exec(name: string, arg?: string): void;
  /** Says `text` in the status line. */
  say(text: string): void;
  /** Shows or hides the upload progress (0..1, or undefined to hide). */
  progress(value?: number): void;
  /** Opens the file picker for images to insert. */
  chooseImages(): void;
  /** Opens the link panel. */
  link(): void;
  /** Opens the keyboard shortcuts panel. */
  shortcuts(): void;
  /** Opens the image tools chunk. */
  tools(): Promise<ImageTools>;
  /** Updates the toolbar's pressed states. */
  refresh(): void;
}

/** What the editor uses of the image tools chunk (`image_tools.ts`). */
export interface ImageTools {
  /**
   * Asks for the alt text of `image` in a modal dialog: the text, `""` for
   * a decorative image, or `null` when the editor cancels.
   */
  askAlt(
    editor: RichEditor,
    image: File | HTMLImageElement,
  ): Promise<string | null>;
  /** Opens the panel of a clicked image (Replace, Alt text, Remove). */
  openImageTools(editor: RichEditor, img: HTMLImageElement): void;
}
