import { MongoServerError } from "mongodb";

/** True when a write failed on a unique index (E11000): the value is taken. */
export function isDuplicate(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && error.code === 11000;
}
