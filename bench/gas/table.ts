/** One benchmark section: rows of operations, columns of contracts, gas in each cell (null: not applicable). */
export interface BenchSection {
  title: string;
  /** Column holding the reference figures; ratios are printed against it when set. */
  reference?: string;
  columns: string[];
  rows: { operation: string; gas: Record<string, bigint | null> }[];
  /** Targets missed or reference figures not reproduced; a non-empty list makes the run exit with code 1. */
  failures: string[];
  notes?: string[];
}

function cell(gas: bigint | null | undefined, reference: bigint | null | undefined): string {
  if (gas === null || gas === undefined) return "-";
  const figure = gas.toLocaleString("en-US");
  if (reference === null || reference === undefined || reference === 0n) return figure;
  const ratio = Number(gas) / Number(reference);
  return `${figure} (${ratio.toFixed(3)}x)`;
}

/** Formats a section as a Markdown table (readable on a terminal and pasteable into a note). */
export function formatSection(section: BenchSection): string {
  const header = ["operation", ...section.columns];
  const lines = [`## ${section.title}`, "", `| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of section.rows) {
    const reference = section.reference ? row.gas[section.reference] : undefined;
    const cells = section.columns.map((column) =>
      column === section.reference ? cell(row.gas[column], undefined) : cell(row.gas[column], reference),
    );
    lines.push(`| ${row.operation} | ${cells.join(" | ")} |`);
  }
  for (const note of section.notes ?? []) lines.push("", note);
  return lines.join("\n");
}
