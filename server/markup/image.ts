/**
 * Images for visitors: an image field's stored URL turned into `src`,
 * `width`, `height`, `srcset` and `sizes` from its upload record, and the
 * `<img>` markup of an image field with them.
 *
 * @module
 */
import type { Allowlist } from "../../core/content.ts";
import type { ContentStore } from "../store/mod.ts";
import {
  type MediaStorage,
  type UploadedImage,
  uploadedImage,
} from "../media/mod.ts";
import { type Attributes, element } from "./_html.ts";
import { type FieldMarkupOptions, fieldParts } from "./markers.ts";

/** What {@linkcode responsiveImage} gives: the attributes of an `<img>`. */
export interface ResponsiveImage {
  /** The stored URL, unchanged. */
  src: string;
  /** The original's width in pixels (absent for an unknown URL). */
  width?: number;
  /** The original's height in pixels (absent for an unknown URL). */
  height?: number;
  /** The variants and the original, `"<url> <width>w, …"` (absent without variants). */
  srcset?: string;
  /** The display width hint matching `srcset` (absent without `srcset`). */
  sizes?: string;
}

/** Options of {@linkcode responsiveImage}: usually the shared options object. */
export interface ResponsiveImageOptions {
  /** Where the media endpoint recorded uploads (its `uploads`; usually the content store). */
  store: ContentStore;
  /** The media storage: its public URL tells an upload's URL from others. */
  storage: MediaStorage;
  /**
   * The `sizes` to write with `srcset`. Default
   * `"(max-width: <width>px) 100vw, <width>px"`: the full viewport on small
   * screens, at most the original's width (what the editor writes for
   * images in rich text).
   */
  sizes?: string;
}

/** The storage key of `url`, if `url` is a URL of `storage` at all. */
function keyOf(url: string, storage: MediaStorage): string | null {
  const base = storage.url("");
  if (!url.startsWith(base) || url.length === base.length) return null;
  try {
    const key = url.slice(base.length).split("/").map(decodeURIComponent)
      .join("/");
    return storage.url(key) === url ? key : null;
  } catch {
    return null;
  }
}

/**
 * The `<img>` attributes of a recorded image: the variants (no wider than
 * the original, URLs without spaces or commas) and the original in
 * `srcset`, by width.
 *
 * @example
 * ```ts
 * import { imageAttributes } from "./image.ts";
 * imageAttributes({ url: "/m/a.jpg", width: 800, height: 600, type: "image/jpeg", variants: [] });
 * // { src: "/m/a.jpg", width: 800, height: 600 }
 * ```
 */
export function imageAttributes(
  image: UploadedImage,
  sizes?: string,
): ResponsiveImage {
  const { url, width, height } = image;
  const out: ResponsiveImage = { src: url, width, height };
  const variants = image.variants.filter((v) =>
    v.width <= width && !/[\s,]/.test(v.url)
  );
  if (!variants.length) return out;
  const all = variants.some((v) => v.width === width)
    ? variants
    : [...variants, image];
  out.srcset = all.map((v) => `${v.url} ${v.width}w`).join(", ");
  out.sizes = sizes ?? `(max-width: ${width}px) 100vw, ${width}px`;
  return out;
}

/**
 * The `<img>` attributes for an image field's stored `url`, from its
 * upload record: `src` (the URL), the original's `width` and `height`
 * (no layout shift), and `srcset` and `sizes` over its variants, so a
 * phone downloads a variant instead of the original. A URL that is not an
 * upload of `storage`, or whose upload has no record (uploaded before
 * images were recorded, or by a media endpoint without `uploads`), gives
 * just `{ src }`; an empty or missing value gives `null`.
 *
 * One read of the content store per call.
 *
 * @example
 * ```ts
 * import {
 *   MemoryContentStore,
 *   MemoryMediaStorage,
 *   responsiveImage,
 * } from "@inplace/cms";
 * const options = { store: new MemoryContentStore(), storage: new MemoryMediaStorage() };
 * const image = await responsiveImage("/elsewhere/a.png", options);
 * image?.src; // "/elsewhere/a.png"
 * ```
 */
export async function responsiveImage(
  url: string | null | undefined,
  options: ResponsiveImageOptions,
): Promise<ResponsiveImage | null> {
  if (!url) return null;
  const key = keyOf(url, options.storage);
  const image = key === null ? null : await uploadedImage(options.store, key);
  return image && image.url === url
    ? imageAttributes(image, options.sizes)
    : { src: url };
}

/** Options of {@linkcode cmsImage}: an image field and its responsive image. */
export type ImageMarkupOptions<C extends Allowlist = Allowlist> =
  & Omit<FieldMarkupOptions<C>, "value" | "as">
  & {
    /** {@linkcode responsiveImage}'s answer for the field's stored URL. */
    image: ResponsiveImage | null | undefined;
  };

/**
 * The attributes of an image field's `<img>`: the host's, the markers (in
 * edit mode), then `src`, `width`, `height`, `srcset` and `sizes`. Throws a
 * `TypeError` when `content` is given and `field` is not a declared image
 * field.
 *
 * @example
 * ```ts
 * import { imageParts } from "./image.ts";
 * imageParts({ field: "pages:home:hero", image: { src: "/a.png" } }, { alt: "" });
 * // { alt: "", src: "/a.png" }
 * ```
 */
export function imageParts(
  options: ImageMarkupOptions,
  attrs: Attributes,
  who = "cmsImage",
): Attributes {
  const { image } = options;
  const parts = fieldParts(
    { ...options, value: image?.src, as: "img" } as FieldMarkupOptions,
    attrs,
    who,
    true,
  );
  if (options.content && parts.kind !== "image") {
    throw new TypeError(
      `${who}: ${JSON.stringify(options.field)} is not an image field`,
    );
  }
  const out: Attributes = { ...parts.attrs };
  if (image?.src) {
    out.width = image.width;
    out.height = image.height;
    out.srcset = image.srcset;
    out.sizes = image.sizes;
  }
  return out;
}

/**
 * Whether an image field writes an `<img>`: when it has an image, or in edit
 * mode (an `<img>` without `src` to drop onto). A visitor gets nothing for a
 * field without an image: an `<img>` without `src` would show its alt text.
 *
 * @example
 * ```ts
 * import { imageShown } from "./image.ts";
 * imageShown({ field: "pages:home:cover", image: null }); // false
 * ```
 */
export function imageShown(
  options: Pick<ImageMarkupOptions, "image" | "editing">,
): boolean {
  return !!(options.image?.src || options.editing);
}

/**
 * An image field as an escaped `<img>`: responsive for visitors (from
 * {@linkcode responsiveImage}) and, in edit mode, with the field's markers
 * so the editor can replace it. Pass `alt` (and `loading`, `class`, …) in
 * `attrs`. Without an image (`image` is `null`) a visitor gets nothing
 * (an empty string) and an editor an `<img>` without `src` to drop onto.
 *
 * @example
 * ```ts
 * import { cmsImage, MemoryContentStore, MemoryMediaStorage, responsiveImage } from "@inplace/cms";
 * const options = { store: new MemoryContentStore(), storage: new MemoryMediaStorage() };
 * const hero = "/media/a.jpg"; // the stored value of pages:home:hero
 * const html = cmsImage({
 *   field: "pages:home:hero",
 *   image: await responsiveImage(hero, options),
 *   attrs: { alt: "" },
 * });
 * ```
 */
export function cmsImage<C extends Allowlist>(
  options: ImageMarkupOptions<C>,
): string {
  const o = options as ImageMarkupOptions;
  const attrs = imageParts(o, o.attrs ?? {});
  return imageShown(o) ? element("img", attrs) : "";
}
