/**
 * Markers without Preact: escaped markup and attribute strings for
 * editable fields, lists and their items, image fields (responsive for
 * visitors) and the page config script, in any locale, so a host that
 * renders with template strings writes no `data-cms-*` by hand. The
 * Preact components of `@inplace/cms/fresh` render through the same
 * functions. Guide: docs/content.md and docs/images.md.
 *
 * @module
 */
export {
  type Attributes,
  attributeString,
  type AttributeValue,
  element,
  escapeHtml,
} from "./_html.ts";
export {
  cmsField,
  cmsFieldAttributes,
  cmsItemAttributes,
  cmsList,
  cmsListAttributes,
  type FieldMarkerOptions,
  fieldMarkers,
  type FieldMarkupCommon,
  type FieldMarkupOptions,
  type FieldName,
  type FieldParts,
  fieldParts,
  itemMarkers,
  itemMarkersOf,
  listMarkers,
  type ListMarkupOptions,
  type ResolvedList,
  resolveList,
} from "./markers.ts";
export {
  alternateLinks,
  clientScript,
  cmsAlternates,
  type CmsAlternatesOptions,
  cmsConfig,
  type CmsConfigOptions,
  type CmsPageConfig,
  cmsScript,
  type CmsScriptOptions,
  CONFIG_ATTRIBUTES,
  loaderScript,
  scriptJson,
} from "./config.ts";
export {
  cmsImage,
  imageAttributes,
  type ImageMarkupOptions,
  imageParts,
  imageShown,
  type ResponsiveImage,
  responsiveImage,
  type ResponsiveImageOptions,
} from "./image.ts";
