import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";

/**
 * The link rules of the project's documents: a link points inside the repository, at a file that exists, and at a
 * heading that exists when it names one. Standards and outside projects are named in the text (EIP-4361, ERC-7540,
 * Ponder), not linked: a document that is read from a clone must not send its reader elsewhere to follow it.
 */

export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  problem: string;
}

/** A link of a markdown text: inline `[text](target)`, a reference definition `[name]: target`, or `<scheme:...>`. */
interface Link {
  line: number;
  target: string;
}

/** GitHub's anchor of a heading: inline markup dropped, lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*~]/g, "")
    .replace(/<[^>]+>/g, "");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Lines outside fenced code blocks, with their numbers; inline code spans blanked so that their text is no link. */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((raw, index) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opener) {
      if (fence === null) fence = opener[1][0];
      else if (opener[1][0] === fence) fence = null;
      return;
    }
    if (fence !== null) return;
    lines.push({ line: index + 1, text: raw.replace(/`[^`]*`/g, (span) => " ".repeat(span.length)) });
  });
  return lines;
}

/** The anchors a markdown text defines: its headings' slugs, numbered as GitHub numbers repeats. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLinesKeepingCode(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Like proseLines, but code spans kept: a heading's anchor includes their text. */
function proseLinesKeepingCode(text: string): { line: number; text: string }[] {
  const prose = new Set(proseLines(text).map(({ line }) => line));
  return text
    .split("\n")
    .map((raw, index) => ({ line: index + 1, text: raw }))
    .filter(({ line }) => prose.has(line));
}

export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ line, target: match[1] });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(prose);
    if (definition) links.push({ line, target: definition[1] });
    for (const match of prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)) links.push({ line, target: match[1] });
  }
  return links;
}

/** Every broken rule of one markdown file of the repository at `root`. */
export function checkFile(root: string, file: string): LinkProblem[] {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  const problems: LinkProblem[] = [];
  const report = (line: number, target: string, problem: string) => problems.push({ file, line, target, problem });
  for (const { line, target } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      report(line, target, "links outside the repository (name the standard or project in the text instead)");
      continue;
    }
    const [pathPart, anchor] = splitAnchor(target);
    if (pathPart === "") {
      if (anchor !== null && !anchorsOf(text).has(anchor)) report(line, target, `no heading "#${anchor}" in this file`);
      continue;
    }
    if (isAbsolute(pathPart)) {
      report(line, target, "an absolute path: link relative to the document");
      continue;
    }
    const resolved = resolve(dirname(path), decodeURIComponent(pathPart));
    const inside = relative(root, resolved);
    if (inside.startsWith("..") || isAbsolute(inside)) {
      report(line, target, "points outside the repository");
      continue;
    }
    if (!existsSync(resolved)) {
      report(line, target, `no such file: ${inside}`);
      continue;
    }
    if (anchor !== null && resolved.endsWith(".md") && statSync(resolved).isFile()) {
      if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor))
        report(line, target, `no heading "#${anchor}" in ${inside}`);
    }
  }
  return problems;
}

function splitAnchor(target: string): [string, string | null] {
  const hash = target.indexOf("#");
  return hash === -1 ? [target, null] : [target.slice(0, hash), target.slice(hash + 1)];
}

/**
 * Repository paths named in code spans (`api/src/tx/engine.ts`) that do not exist: a document that walks through the
 * code names files, and a renamed file must not leave it pointing at nothing.
 */
export function missingCodePaths(root: string, file: string): LinkProblem[] {
  const text = readFileSync(join(root, file), "utf8");
  const problems: LinkProblem[] = [];
  text.split("\n").forEach((raw, index) => {
    for (const match of raw.matchAll(
      /`((?:api|packages|contracts|scripts|test|bench|deploy|ignition|examples)\/[\w./-]+)`/g,
    )) {
      const named = match[1].replace(/\/$/, "");
      if (!existsSync(join(root, named)))
        problems.push({ file, line: index + 1, target: named, problem: "no such path" });
    }
  });
  return problems;
}
