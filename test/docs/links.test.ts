import { expect } from "chai";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anchorsOf, checkFile, headingSlug, missingCodePaths, type LinkProblem } from "./markdownLinks";

const ROOT = join(__dirname, "..", "..");

/** The documents a reader of a clone follows: the README, docs/ (not the spec copies in docs/spec/) and bench/. */
function documents(): string[] {
  const inFolder = (folder: string) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `${folder}/${name}`);
  return ["README.md", ...inFolder("docs"), ...inFolder("bench")];
}

const shown = (problems: LinkProblem[]) =>
  problems.map(({ file, line, target, problem }) => `${file}:${line} ${target}: ${problem}`);

describe("documents: every link stays inside the repository and reaches its file and heading", function () {
  it("README.md, docs/*.md and bench/*.md have no link outside the repository, to a missing file or heading", function () {
    const files = documents();
    expect(files).to.include.members(["README.md", "docs/architecture.md", "bench/RESULTS.md"]);
    expect(shown(files.flatMap((file) => checkFile(ROOT, file)))).to.deep.equal([]);
  });

  it("docs/architecture.md names only files and folders that exist", function () {
    expect(shown(missingCodePaths(ROOT, "docs/architecture.md"))).to.deep.equal([]);
  });

  it("the README fits on a few screens: under 200 lines", function () {
    const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length;
    expect(lines).to.be.below(200);
  });

  describe("the checker itself", function () {
    let root: string;
    before(function () {
      root = mkdtempSync(join(tmpdir(), "nap-links-"));
      mkdirSync(join(root, "docs"));
      writeFileSync(
        join(root, "docs", "target.md"),
        "# Target\n\n## Two `npm` commands: start, test\n\n## Two `npm` commands: start, test\n",
      );
    });
    after(function () {
      rmSync(root, { recursive: true, force: true });
    });

    const problemsOf = (markdown: string) => {
      writeFileSync(join(root, "docs", "source.md"), markdown);
      return checkFile(root, "docs/source.md").map(({ line, target, problem }) => ({ line, target, problem }));
    };

    it("makes GitHub's anchors: markup and punctuation dropped, spaces to hyphens, repeats numbered", function () {
      expect(headingSlug("Benchmark (`npm run bench:api`)")).to.equal("benchmark-npm-run-benchapi");
      expect(headingSlug("Texts in storage, not only in events: measured")).to.equal(
        "texts-in-storage-not-only-in-events-measured",
      );
      expect(headingSlug("The [data API](data-api.md)'s `BENCH_PARTS`")).to.equal("the-data-apis-bench_parts");
      expect([...anchorsOf("# A\n\n## B b\n\n```\n# not a heading\n```\n\n## B b\n")]).to.deep.equal([
        "a",
        "b-b",
        "b-b-1",
      ]);
    });

    it("accepts a relative link to an existing file and heading, and an anchor of the same file", function () {
      expect(
        problemsOf(
          "# Here\n\n[t](target.md), [t](target.md#two-npm-commands-start-test-1), [h](#here), [r](../docs/)\n",
        ),
      ).to.deep.equal([]);
    });

    it("refuses a link outside the repository: a web address, a parent of the root, an absolute path", function () {
      expect(
        problemsOf(
          "[w](https://eips.ethereum.org/EIPS/eip-4361)\n[p](../../elsewhere.md)\n[a](/etc/hosts)\n<http://x.test>\n",
        ),
      ).to.deep.equal([
        {
          line: 1,
          target: "https://eips.ethereum.org/EIPS/eip-4361",
          problem: "links outside the repository (name the standard or project in the text instead)",
        },
        { line: 2, target: "../../elsewhere.md", problem: "points outside the repository" },
        { line: 3, target: "/etc/hosts", problem: "an absolute path: link relative to the document" },
        {
          line: 4,
          target: "http://x.test",
          problem: "links outside the repository (name the standard or project in the text instead)",
        },
      ]);
    });

    it("refuses a missing file and a missing heading, and ignores links inside code", function () {
      expect(
        problemsOf(
          "[m](missing.md)\n[h](target.md#measured)\n`[c](missing.md)`\n```\n[f](missing.md)\n```\n[s](#nowhere)\n",
        ),
      ).to.deep.equal([
        { line: 1, target: "missing.md", problem: "no such file: docs/missing.md" },
        { line: 2, target: "target.md#measured", problem: 'no heading "#measured" in docs/target.md' },
        { line: 7, target: "#nowhere", problem: 'no heading "#nowhere" in this file' },
      ]);
    });

    it("names a code-span path of the repository that does not exist", function () {
      writeFileSync(join(root, "docs", "walk.md"), "`docs/target.md` `api/src/gone.ts` `docs/`\n");
      expect(missingCodePaths(root, "docs/walk.md").map(({ target }) => target)).to.deep.equal(["api/src/gone.ts"]);
    });
  });
});
