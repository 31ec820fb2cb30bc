import { MongoServerError } from "mongodb";

/**
 * FerretDB's SQLite backend answers "database is locked (SQLITE_BUSY)" when writers collide; the statement did not
 * run, so it is retried after a short random pause.
 */
export async function retryBusy<T>(operation: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (err) {
      const busy = err instanceof MongoServerError && /SQLITE_BUSY|database is locked/.test(err.message);
      if (!busy || attempt >= 30) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * Math.min(attempt + 1, 5)));
    }
  }
}
