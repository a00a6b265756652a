/**
 * S3 media storage (AWS S3, R2, MinIO), in its own entry point so that only
 * apps that use it load the `aws4fetch` signer.
 *
 * Guide: [storage choices](../docs/storage.md#storage-choices) (AWS S3, R2,
 * MinIO, path-style or virtual-hosted).
 *
 * @example
 * ```ts
 * import { createMediaHandler } from "@inplace/cms";
 * import { S3MediaStorage } from "@inplace/cms/s3";
 *
 * const storage = new S3MediaStorage({
 *   endpoint: "https://s3.eu-west-1.amazonaws.com",
 *   region: "eu-west-1",
 *   bucket: "my-site-media",
 *   accessKeyId: Deno.env.get("S3_ACCESS_KEY_ID") ?? "",
 *   secretAccessKey: Deno.env.get("S3_SECRET_ACCESS_KEY") ?? "",
 *   publicUrl: "https://my-site-media.s3.eu-west-1.amazonaws.com",
 * });
 * const media = createMediaHandler({ authorize: () => null, storage });
 * ```
 *
 * @module
 */
export { S3MediaStorage, type S3MediaStorageOptions } from "./storage.ts";
