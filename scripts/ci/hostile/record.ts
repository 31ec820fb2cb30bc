/** What a hostile-input run saw, door by door, and the bounds it found broken. */

export type Door = "graphql-http" | "graphql-ws" | "ws";

export interface Violation {
  door: Door | "process";
  category: string;
  /** A short name of what broke ("server error 500", "no answer"): repeats of one kind in a category are counted. */
  kind: string;
  what: string;
  /** The input that broke the bound, cut short for the log. */
  input?: string;
}

interface DoorTally {
  requests: number;
  messages: number;
  sockets: number;
  outcomes: Map<string, number>;
  slowestMs: number;
  slowest: string;
}

function shorten(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} characters)`;
}

export class Record {
  readonly violations: Violation[] = [];
  readonly doors = new Map<Door, DoorTally>();

  private tally(door: Door): DoorTally {
    let tally = this.doors.get(door);
    if (!tally) {
      tally = { requests: 0, messages: 0, sockets: 0, outcomes: new Map(), slowestMs: 0, slowest: "" };
      this.doors.set(door, tally);
    }
    return tally;
  }

  /** One HTTP request or one socket sequence's answer: `outcome` is a status ("200") or a close ("close 1009"). */
  outcome(door: Door, outcome: string): void {
    const outcomes = this.tally(door).outcomes;
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }

  request(door: Door, ms: number, label: string): void {
    const tally = this.tally(door);
    tally.requests += 1;
    if (ms > tally.slowestMs) {
      tally.slowestMs = ms;
      tally.slowest = shorten(label, 160);
    }
  }

  messages(door: Door, count: number): void {
    this.tally(door).messages += count;
  }

  socket(door: Door): void {
    this.tally(door).sockets += 1;
  }

  private repeats = new Map<string, number>();

  violation(violation: Violation): void {
    const entry = { ...violation, input: violation.input === undefined ? undefined : shorten(violation.input) };
    this.violations.push(entry);
    const key = `${entry.door}/${entry.category}/${entry.kind}`;
    const seen = (this.repeats.get(key) ?? 0) + 1;
    this.repeats.set(key, seen);
    // The first few of a kind are printed with their input; the tally at the end counts them all.
    if (seen > 2) return;
    console.log(
      `  VIOLATION [${entry.door} / ${entry.category}] ${entry.what}${entry.input ? `: ${entry.input}` : ""}`,
    );
  }

  /** Violations by door, category and kind, with their counts. */
  violationSummary(): string[] {
    return [...this.repeats].map(([key, count]) => `${key}: ${count}`);
  }

  summary(): string[] {
    const lines: string[] = [];
    for (const [door, tally] of this.doors) {
      const outcomes = [...tally.outcomes]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([outcome, count]) => `${outcome}: ${count}`)
        .join(", ");
      lines.push(
        `${door}: ${tally.requests} requests, ${tally.messages} messages, ${tally.sockets} sockets; ` +
          `outcomes ${outcomes || "none"}; slowest ${Math.round(tally.slowestMs)} ms (${tally.slowest})`,
      );
    }
    return lines;
  }
}
