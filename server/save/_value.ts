/**
 * The save endpoint's value checks: the text to store for a field
 * ({@linkcode cleanValue}: plain, rich through the sanitizer, image URL,
 * list item, with the field's length limit) and a whole list's items
 * ({@linkcode cleanList}: its length within `min`..`max`, each item's
 * checks).
 *
 * @module
 */
import {
  type FieldSpec,
  fitsLimit,
  isImageValue,
  listLengthError,
} from "../../core/content.ts";
import { Status } from "../../core/protocol/mod.ts";
import { canonicalUrl } from "../../core/url.ts";
import { HttpError, type ResolvedField } from "../http/mod.ts";
import { type SanitizeOptions, sanitizeRich } from "../sanitize/mod.ts";
import type { ContentValue } from "../store/mod.ts";

/**
 * The string to store and how many things the sanitizer removed from it;
 * throws 400 when `value` is not acceptable.
 */
export async function cleanValue(
  target: ResolvedField,
  value: unknown,
  sanitize: SanitizeOptions,
): Promise<{ value: ContentValue; removed: number }> {
  if (target.kind === "list" && target.index === undefined) {
    return { value: cleanList(target.spec, value), removed: 0 };
  }
  const { kind, spec } = target;
  let clean: string | undefined;
  let removed = 0;
  if (typeof value === "string") {
    if (value.isWellFormed()) {
      if (kind === "rich") {
        ({ html: clean, removed } = await sanitizeRich(value, sanitize));
      } else if (kind !== "image") clean = value;
      else if (isImageValue(value)) clean = canonicalImage(value);
    }
  } else if (kind !== "rich" && kind !== "image") {
    if (typeof value === "boolean") clean = String(value);
    if (typeof value === "number" && Number.isFinite(value)) {
      clean = String(value);
    }
  }
  if (clean === undefined) {
    throw new HttpError(
      Status.BadRequest,
      kind === "image" ? "Invalid image URL" : "Invalid value",
    );
  }
  if (!fitsLimit(spec, clean)) {
    throw new HttpError(
      Status.BadRequest,
      `Value too long (limit ${spec.maxLength} characters)`,
    );
  }
  return { value: clean, removed };
}

/**
 * An image field's value in its one spelling: what a browser would fetch
 * for it, so media cleanup finds every use. Another spelling of it (`.`
 * or `..` segments, backslashes, tabs, a host in capitals) gets 400
 * naming the one to send; a URL that depends on the page it is shown on
 * (`media/a.png`) gets 400 too.
 */
function canonicalImage(value: string): string {
  const canonical = canonicalUrl(value);
  if (canonical === null) {
    throw new HttpError(
      Status.BadRequest,
      "Image URL must start with /, http:// or https://",
    );
  }
  if (canonical !== value) {
    throw new HttpError(
      Status.BadRequest,
      `Image URL must be written as ${canonical}`,
    );
  }
  return value;
}

/**
 * A whole list's items as stored; throws 400 when it is not a list of
 * texts, its length is outside `min`..`max`, or an item fails its checks.
 */
export function cleanList(spec: FieldSpec, value: unknown): string[] {
  if (!Array.isArray(value)) {
    throw new HttpError(Status.BadRequest, "List value must be an array");
  }
  const tooMany = listLengthError(spec, value.length);
  if (tooMany) throw new HttpError(Status.BadRequest, tooMany);
  const item = spec.item!;
  for (const [i, text] of value.entries()) {
    if (typeof text !== "string" || !text.isWellFormed()) {
      throw new HttpError(Status.BadRequest, `Invalid list item ${i}`);
    }
    if (!fitsLimit(item, text)) {
      throw new HttpError(
        Status.BadRequest,
        `List item ${i} too long (limit ${item.maxLength} characters)`,
      );
    }
  }
  return value;
}
