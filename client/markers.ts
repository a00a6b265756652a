/**
 * Strict parsing of editable region markers
 * (`data-cms-field="collection:key:field"`).
 *
 * @module
 */

/** A parsed marker. */
export interface Marker {
  /** The marker element. */
  el: HTMLElement;
  /** The marker text, `collection:key:field`; identifies the field. */
  id: string;
  collection: string;
  key: string;
  /** Field name, `name` or `name.<index>` for a list item. */
  field: string;
  /** Whether `data-cms-type="richtext"` (else a plain region). */
  rich: boolean;
  /** `data-cms-version`, when present. */
  version?: string;
}

// collection:key:field; a field is a name, or `name.<index>` for a list item.
const MARKER = /^([^:\s]+):([^:\s]+):([A-Za-z_$][\w$-]*(?:\.(?:0|[1-9]\d*))?)$/;

/**
 * Finds and parses all marker elements of the page, in document order.
 * Malformed markers get a console warning and are skipped.
 */
export function findMarkers(): Marker[] {
  const out: Marker[] = [];
  for (const el of document.querySelectorAll<HTMLElement>("[data-cms-field]")) {
    const id = el.getAttribute("data-cms-field")!;
    const type = el.getAttribute("data-cms-type");
    const m = MARKER.exec(id);
    if (!m || (type !== null && type !== "richtext")) {
      console.warn("cms: malformed marker", el);
    } else {
      out.push({
        el,
        id,
        collection: m[1],
        key: m[2],
        field: m[3],
        rich: !!type,
        version: el.getAttribute("data-cms-version") ?? undefined,
      });
    }
  }
  return out;
}
