/** The Idempotency-Key request header of the POSTs that move value (the service keeps the first answer per key). */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** 1-255 printable ASCII characters without spaces. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
