/**
 * The hints the S3 store's configuration errors give: where credentials come
 * from, and which store URL fits when the endpoint answers as another kind of
 * server.
 *
 * @module
 */

/** Where {@link toSluiceError} says credentials come from when none were found. */
export const S3_CREDENTIALS_HINT =
  "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary keys) in the environment, or AWS_PROFILE naming a profile in ~/.aws/credentials or ~/.aws/config";

/** What a plain-text refusal is, for the message: a web server, or a GCS emulator named in an s3:// URL. */
export const PLAIN_TEXT = {
  what: "a plain-text answer (a web server's, or fake-gcs-server's to an S3 path)",
  hint:
    "for GCS or fake-gcs-server, use a gs:// store URL (through swamp, the @sluice/gcs-datastore type)",
};

/** What a JSON refusal is, for the message: most often a GCS endpoint named in an s3:// URL. */
export const GCS_LIKE = {
  what: "a JSON error, as the Google Cloud Storage JSON API answers",
  hint:
    "for GCS or fake-gcs-server, use a gs:// store URL (through swamp, the @sluice/gcs-datastore type)",
};
