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
  /** `rich` when `data-cms-type="richtext"`, else `plain`. */
  kind: "plain" | "rich";
  /** `data-cms-version`, when present. */
  version?: string;
}

const PART = "[^:\\s]+";
const FIELD = "[A-Za-z_$][\\w$-]*(?:\\.(?:0|[1-9]\\d*))?";
const MARKER = new RegExp(`^(${PART}):(${PART}):(${FIELD})$`);

/** Parses one marker element, or warns and returns `null` when malformed. */
export function parseMarker(el: HTMLElement): Marker | null {
  const id = el.getAttribute("data-cms-field") ?? "";
  const type = el.getAttribute("data-cms-type");
  const m = MARKER.exec(id);
  if (!m || (type !== null && type !== "richtext")) {
    console.warn("cms: ignoring malformed marker", id, type ?? "", el);
    return null;
  }
  const version = el.getAttribute("data-cms-version") ?? undefined;
  return {
    el,
    id,
    collection: m[1],
    key: m[2],
    field: m[3],
    kind: type ? "rich" : "plain",
    version,
  };
}

/** Finds and parses all marker elements under `root`, in document order. */
export function findMarkers(root: ParentNode = document): Marker[] {
  const out: Marker[] = [];
  for (const el of root.querySelectorAll<HTMLElement>("[data-cms-field]")) {
    const marker = parseMarker(el);
    if (marker) out.push(marker);
  }
  return out;
}
