/** An example error body of the data API's document: `{ error: { code, message, details } }` without the wrapper. */
export type DataErrorExample = { code: string; message: string; details: Readonly<Record<string, unknown>> };

export const dataError = (code: string, message: string, details: Record<string, unknown> = {}): DataErrorExample => ({
  code,
  message,
  details,
});
