import type { Context } from "koa";
import type { z } from "zod";
import { PayloadTooLargeError, ValidationError } from "../../errors";
import type { InputPart, InputPolicy, RouteDefinition } from "../route";
import { readJsonBody } from "../live/validation";
import { invalid, type DataErrorCode } from "./errors";

/**
 * How the data API reads input: an unknown or repeated query parameter is UNKNOWN_PARAMETER; a bad field is
 * INVALID_<FIELD> (or the code its route declares for it in `inputCodes`), its message naming the field; a body that
 * is not a JSON object is INVALID_BODY. `details.field` names the input.
 */

function codeFor(route: RouteDefinition, field: string): DataErrorCode {
  return (
    (route.inputCodes?.[field] as DataErrorCode | undefined) ??
    `INVALID_${field.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase()}`
  );
}

function parse(
  route: RouteDefinition,
  schema: z.ZodType<Record<string, unknown>>,
  value: unknown,
  part: InputPart,
): Record<string, unknown> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === "unrecognized_keys" && part === "query") {
    const name = issue.keys[0];
    const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
    const allowed = Object.keys(shape);
    throw invalid("UNKNOWN_PARAMETER", `${name}: unknown query parameter; allowed: ${allowed.join(", ") || "none"}`, {
      field: name,
    });
  }
  const field = issue.path.length > 0 ? String(issue.path[0]) : part;
  const where = issue.path.length > 1 ? `${issue.path.slice(1).join(".")}: ` : "";
  const message = issue.code === "unrecognized_keys" ? `unknown field ${issue.keys.join(", ")}` : issue.message;
  throw invalid(codeFor(route, field), `${field}: ${where}${message}`, { field });
}

function query(ctx: Context): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) throw invalid("UNKNOWN_PARAMETER", `${name}: must be given once`, { field: name });
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export function dataInput(bodyLimitBytes: number): InputPolicy {
  return {
    parse,
    query,
    async body(ctx) {
      try {
        return await readJsonBody(ctx, bodyLimitBytes);
      } catch (error) {
        if (error instanceof PayloadTooLargeError || !(error instanceof ValidationError)) throw error;
        throw invalid("INVALID_BODY", error.message, { field: "body" });
      }
    },
  };
}
