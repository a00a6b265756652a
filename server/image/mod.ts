/**
 * Images for the web: format sniffing from the bytes, the decode and
 * variant pipeline on sharp, and the bounded work queue it runs in, within
 * a memory budget.
 *
 * @module
 */
export {
  IMAGE_DEFAULTS,
  type ImageOptions,
  ImagePipeline,
} from "./pipeline.ts";
export { type ImageInfo, sniffImage } from "./sniff/mod.ts";
export { type JobOptions, WorkQueue, type WorkQueueOptions } from "./queue.ts";
export { defaultMemoryBudget, estimateMemory, memoryLimit } from "./memory.ts";
export { type PreparedImage, type VariantFormat } from "./process.ts";
export { type SharpLoader } from "./sharp.ts";
