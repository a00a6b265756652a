/**
 * Uploaded files: the media endpoint (upload), the media library and media
 * cleanup, the upload records, image variants written to storage, and the
 * storage contract with its local-file and memory storages (the S3
 * storage is in `s3/`).
 *
 * @module
 */
export { storeImage } from "./variants.ts";
export { type UploadedImage, uploadedImage } from "./_uploads.ts";
export {
  MemoryMediaStorage,
  type MemoryMediaStorageOptions,
  type StoredMedia,
} from "./memory.ts";
export {
  collectMedia,
  type CollectMediaOptions,
  type MediaGcReport,
} from "./gc.ts";
export {
  createMediaLibraryHandler,
  type MediaLibraryHandlerOptions,
} from "./library.ts";
export { type MediaScanOptions, type Upload } from "./_scan.ts";
export {
  LocalMediaStorage,
  type LocalMediaStorageOptions,
  type OpenedMedia,
  serveLocalMedia,
  type ServeLocalMediaOptions,
} from "./local.ts";
export { createMediaHandler, type MediaHandlerOptions } from "./upload.ts";
export {
  type ListableMediaStorage,
  type MediaObjectInfo,
  type MediaStorage,
} from "./types.ts";
