import type { z } from "zod";

/**
 * The text of a refused request: each zod issue as "field: rule" ("agent_name: must be at least 3 characters"), the
 * same words from the API's validation and from a client that checks arguments before sending them.
 */

/** Zod's own default messages; anything else was written in a schema and is used as is. */
const DEFAULT_MESSAGE = /^(Too (big|small)|Invalid|Unrecognized)/;

function isPresent(input: unknown, path: PropertyKey[]): boolean {
  let node = input;
  for (const key of path) {
    if (node === null || typeof node !== "object" || !(key in (node as object))) return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node !== undefined;
}

function describeIssue(issue: z.core.$ZodIssue, location: string, input: unknown): string {
  const field = issue.path.length > 0 ? issue.path.join(".") : location;
  if (!DEFAULT_MESSAGE.test(issue.message) && issue.code !== "unrecognized_keys") return `${field}: ${issue.message}`;
  switch (issue.code) {
    case "unrecognized_keys":
      return `${issue.path.length > 0 ? `${field}: ` : ""}unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
    case "invalid_type":
      if (!isPresent(input, issue.path)) return `${field}: is required`;
      return `${field}: must be ${issue.expected === "int" ? "an integer" : `a ${issue.expected}`}`;
    case "too_small":
      if (issue.origin === "string") return `${field}: must be at least ${issue.minimum} characters`;
      if (issue.origin === "array") return `${field}: must have at least ${issue.minimum} items`;
      return `${field}: must be ${issue.inclusive ? "at least" : "greater than"} ${issue.minimum}`;
    case "too_big":
      if (issue.origin === "string") return `${field}: must be at most ${issue.maximum} characters`;
      if (issue.origin === "array") return `${field}: must have at most ${issue.maximum} items`;
      return `${field}: must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}`;
    case "invalid_value":
      return `${field}: must be one of ${issue.values.map((v) => String(v)).join(", ")}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

export function validationMessage(error: z.ZodError, location: string, input: unknown): string {
  return error.issues.map((issue) => describeIssue(issue, location, input)).join("; ");
}
