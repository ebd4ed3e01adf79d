import type { CommentLine } from './source-comments.js';

/** A place where a file cites a document outside the repository, and how. */
export interface Citation {
  line: number;
  column: number;
  /** What was found, as written. */
  found: string;
  why: string;
}

/** Cites by section sign, anywhere: code, strings, Markdown (`spec §3.3`, `§4.6`). */
const SECTION_SIGN = /(?:\bspec(?:ification)?\s*)?§\s*[\d.]*\d?/giu;
/** Cites a document by its section numbers in words (`spec 3.3`, `section 4.6`). */
const SECTION_NUMBER =
  /\b(?:spec(?:ification)?(?:'s)?\s+(?:section\s+)?\d+(?:\.\d+)*|section\s+\d+(?:\.\d+)+)\b/giu;
/** The snc scripts' step codes (`S21`, `C9`, `S1–S4`): never words of ours. */
const SNC_CODE = /\b[SC]\d{1,2}(?:\s*[–-]\s*[SC]?\d{1,2})?\b/gu;
function matches(
  text: string,
  pattern: RegExp,
  at: { line: number; column: number },
  why: string,
): Citation[] {
  return [...text.matchAll(pattern)].map((m) => ({
    line: at.line,
    column: at.column + m.index,
    found: m[0].trim(),
    why,
  }));
}

/** Section signs and section numbers in a line of any file (code, strings, docs). */
export function sectionCitations(text: string, at: { line: number; column: number }): Citation[] {
  return [
    ...matches(text, SECTION_SIGN, at, 'cites a document by section sign'),
    ...matches(text, SECTION_NUMBER, at, 'cites a document by section number'),
  ];
}

/**
 * The snc scripts' step codes in one comment line. The build's own stage codes (P0 to P13) are
 * the product's words: docs/bundle-build.md#stage-map defines them, and status and Job names
 * carry them.
 */
export function codeCitations(comment: CommentLine): Citation[] {
  return matches(comment.text, SNC_CODE, comment, "an snc script's step code of the outside spec");
}

/**
 * Every citation of a document outside the repository in a file: section signs and numbers in
 * any line, and the snc scripts' step codes in its comments. Markdown (docs/) may use the step
 * codes: ADR 0032 maps them to what the build does instead.
 */
export function outsideCitations(text: string, comments: readonly CommentLine[]): Citation[] {
  return [
    ...text.split('\n').flatMap((line, i) => sectionCitations(line, { line: i + 1, column: 1 })),
    ...comments.flatMap(codeCitations),
  ].sort((a, b) => a.line - b.line || a.column - b.column);
}
