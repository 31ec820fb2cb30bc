import { z } from "zod";
import type { NapOperation } from "./operation";

/**
 * An operation's schemas as JSON Schema (draft 2020-12), rendered by zod's toJSONSchema: the arguments as the API
 * receives them (io "input"), the answer as it sends it (io "output"). Tool formats want an object schema at the
 * top, so a named schema that zod renders as a `$ref` into `$defs` is inlined.
 */

export type JsonSchema = Record<string, unknown>;

function render(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _draft, ...rendered } = z.toJSONSchema(schema, { io, unrepresentable: "any" });
  void _draft;
  const ref = typeof rendered.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(rendered.$ref) : null;
  if (!ref) return withoutId(rendered);
  const { [ref[1]]: root, ...others } = (rendered.$defs ?? {}) as Record<string, JsonSchema>;
  return withoutId({ ...root, ...(Object.keys(others).length > 0 ? { $defs: others } : {}) });
}

/** zod's `id` metadata names the schema in the OpenAPI documents; it is not a JSON Schema keyword. */
function withoutId({ id: _id, ...schema }: JsonSchema): JsonSchema {
  void _id;
  return schema;
}

export function inputJsonSchema(operation: NapOperation): JsonSchema {
  return render(operation.input, "input");
}

/** The answer's JSON Schema, or undefined when the operation declares none. */
export function outputJsonSchema(operation: NapOperation): JsonSchema | undefined {
  return operation.output ? render(operation.output, "output") : undefined;
}
