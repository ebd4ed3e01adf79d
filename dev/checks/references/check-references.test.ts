import { describe, expect, it } from '@jest/globals';
import { checkFile, formatFinding } from './check-references.js';
import { danglingReason, docLinks } from './doc-links.js';
import type { LinkTargets } from './doc-links.js';
import { githubSlug, headings, markdownAnchors } from './github-slug.js';
import { outsideCitations } from './outside-citations.js';
import { sourceComments } from './source-comments.js';

// The strings below spell out what the check flags; they are its input, not citations.
const SECTION = '\u00a7';

describe("GitHub's heading anchors", () => {
  it.each([
    ['Release when the GitHub job completed', 'release-when-the-github-job-completed'],
    ['`--timings` and `OPERATOR_TIMINGS`', '--timings-and-operator_timings'],
    ['1. Preflight (P0, P1)', '1-preflight-p0-p1'],
    ['Version streams: pools & leases', 'version-streams-pools--leases'],
    ['What *a* **namespace** may _spend_', 'what-a-namespace-may-spend'],
    ['The [CI identity](install.md#ci-identity)', 'the-ci-identity'],
    ['Ünïcode Straße — 2026', 'ünïcode-straße--2026'],
    ['snake_case stays', 'snake_case-stays'],
  ])('%s → #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('numbers repeated headings as GitHub does, also past a heading that looks numbered', () => {
    const doc = ['# Usage', '## Usage', '## Usage 1', '## Usage'].join('\n');
    expect([...markdownAnchors(doc)]).toEqual(['usage', 'usage-1', 'usage-1-1', 'usage-2']);
  });

  it('reads ATX and setext headings and HTML ids, and nothing inside fenced code', () => {
    const doc = [
      '# Title #',
      'Underlined',
      '==========',
      '```sh',
      '# not a heading',
      '```',
      '- a list item',
      '---',
      '<a name="kept-anchor"></a>',
    ].join('\n');
    expect(headings(doc)).toEqual(['Title', 'Underlined']);
    expect([...markdownAnchors(doc)]).toEqual(['title', 'underlined', 'kept-anchor']);
  });
});

describe('links to the documentation', () => {
  const targets: LinkTargets = {
    has: (target) => ['docs/install.md', 'docs/reference/kinds.md', 'samples'].includes(target),
    anchors: (file) =>
      new Set(file === 'docs/install.md' ? ['ci-identity'] : ['lease-limits', 'deletion']),
  };

  it('finds docs/ paths from the root in code, and leaves longer paths and URLs of others', () => {
    const code = [
      '// The limits (docs/reference/kinds.md#lease-limits), and docs/install.md#gone.',
      "const url = 'https://example.com/blob/main/docs/install.md#whatever';",
      '// see ../docs/install.md#not-from-the-root',
    ].join('\n');
    const links = docLinks('operator/x.ts', code);
    expect(links.map((l) => [l.line, l.column, l.target, l.anchor])).toEqual([
      [1, 16, 'docs/reference/kinds.md', 'lease-limits'],
      [1, 59, 'docs/install.md', 'gone'],
    ]);
    expect(links.map((l) => danglingReason(l, targets))).toEqual([
      undefined,
      'docs/install.md has no heading with the anchor #gone',
    ]);
  });

  it("resolves Markdown links against the file's folder, outside code spans and fences", () => {
    const doc = [
      'See [limits](kinds.md#lease-limits), [here](#deletion), [up](../install.md#ci-identity),',
      '[samples](../../samples/), [a site](https://example.com/x.md#y) and `[no](link.md)`.',
      '```',
      '[not](a-link.md)',
      '```',
      '[def]: ../missing.md',
    ].join('\n');
    const links = docLinks('docs/reference/kinds.md', doc);
    expect(links.map((l) => [l.target, l.anchor ?? null])).toEqual([
      ['docs/reference/kinds.md', 'lease-limits'],
      ['docs/reference/kinds.md', 'deletion'],
      ['docs/install.md', 'ci-identity'],
      ['samples', null],
      ['docs/missing.md', null],
    ]);
    expect(links.map((l) => danglingReason(l, targets)).filter(Boolean)).toEqual([
      'docs/missing.md does not exist',
    ]);
  });

  it("follows the repository's own GitHub URLs to its files, and skips anchors made at run time", () => {
    const yaml = [
      '# https://github.com/guestcluster/lease/blob/main/docs/install.md#ci-identity',
      'url: https://github.com/guestcluster/lease/blob/main/docs/install.md#${alert}',
    ].join('\n');
    const links = docLinks('operator/monitoring/rules.yaml', yaml);
    expect(links.map((l) => [l.target, l.anchor || null])).toEqual([
      ['docs/install.md', 'ci-identity'],
      ['docs/install.md', null],
    ]);
    expect(links.map((l) => danglingReason(l, targets))).toEqual([undefined, undefined]);
  });
});

describe('citations of documents outside the repository', () => {
  const cite = (file: string, text: string): string[] =>
    outsideCitations(text, sourceComments(file, text)).map(
      (c) => `${c.line}:${c.column} ${c.found}`,
    );

  it('flags a section sign anywhere, and section numbers in words', () => {
    const text = [
      `const message = 'see the spec ${SECTION}3.3';`,
      `// as RFC 8017 ${SECTION}9.2 says; spec 4.6 and section 2.1 too`,
    ].join('\n');
    expect(cite('a.ts', text)).toEqual([
      `1:26 spec ${SECTION}3.3`,
      `2:16 ${SECTION}9.2`,
      '2:27 spec 4.6',
      '2:40 section 2.1',
    ]);
  });

  it('flags snc step codes in comments, not in code or strings, and leaves the stage codes', () => {
    const text = [
      "const type = 'S3'; // SNC S21 and C9, S1–S4",
      "const step = { phase: 'P5' }; /* P4–P7 shift the clock; (P11) */",
      "const re = /\\/\\/ P2/; const s = '// P3 is no comment';",
    ].join('\n');
    expect(cite('a.ts', text)).toEqual(['1:27 S21', '1:35 C9', '1:39 S1–S4']);
  });

  it('reads # comments of scripts and YAML outside quotes, and // comments of Go', () => {
    expect(cite('run.sh', 'echo "# S21 in a string" # the S3 step')).toEqual(['1:32 S3']);
    expect(cite('x.yaml', "key: 'a # C9' # C20 (power)")).toEqual(['1:17 C20']);
    expect(cite('main.go', 'x := "// S4" // S21\n/* C9 */')).toEqual(['1:17 S21', '2:4 C9']);
  });

  it('leaves Markdown its stage and step codes: docs/reference defines them', () => {
    expect(cite('docs/bundle-build.md', `## Preflight (P0, P1)\nThe S27 step ${SECTION}2`)).toEqual(
      [`2:14 ${SECTION}2`],
    );
  });
});

describe('one file checked', () => {
  it('reports each citation and dangling link as file:line:column, in order', () => {
    const targets: LinkTargets = { has: () => true, anchors: () => new Set(['ok']) };
    const text = `// docs/install.md#missing (spec ${SECTION}1)\n// docs/install.md#ok (S2)\n`;
    expect(checkFile('operator/x.ts', text, targets).map(formatFinding)).toEqual([
      `operator/x.ts:1:4: "docs/install.md#missing": docs/install.md has no heading with the anchor #missing`,
      `operator/x.ts:1:29: "spec ${SECTION}1": cites a document by section sign`,
      'operator/x.ts:2:24: "S2": an snc script\'s step code of the outside spec',
    ]);
  });
});
