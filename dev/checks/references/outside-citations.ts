import { BUILD_STAGES } from '../../../contracts/bundle-build.js';
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
/** A build stage code (`P5`), possibly a range (`P4–P7`), and what follows it. */
const STAGE_CODE = /\bP(\d{1,2})\b(?:\s*[–-]\s*P?\d{1,2}\b)?/gu;

/**
 * The stage codes are the product's own words where the product writes them: with the stage's
 * name (`P5 InstallWait`, as status messages say it) or as a step's recorded name
 * (`P7-poweroff`). Written bare (`(P5)`, `P4–P7`) they are the outside spec's shorthand.
 */
function ownStageName(code: string, after: string): boolean {
  const stage = BUILD_STAGES.find((s) => s.phase === code);
  if (!stage) return false;
  const steps: readonly string[] = stage.steps;
  const named = new RegExp(`^ ${stage.name}\\b`).test(after);
  const step = /^-([a-z][a-z-]*)/.exec(after)?.[1];
  return named || (step !== undefined && steps.includes(step));
}

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

/** The bundle-build spec's codes in one comment line: snc step codes, and bare stage codes. */
export function codeCitations(comment: CommentLine): Citation[] {
  const bare = [...comment.text.matchAll(STAGE_CODE)].filter((m) => {
    const range = m[0] !== `P${m[1]}`;
    return range || !ownStageName(m[0], comment.text.slice(m.index + m[0].length));
  });
  return [
    ...matches(comment.text, SNC_CODE, comment, "an snc script's step code of the outside spec"),
    ...bare.map((m) => ({
      line: comment.line,
      column: comment.column + m.index,
      found: m[0],
      why: 'a bare build stage code: name the stage as the product does (`P5 InstallWait`, `P7-poweroff`)',
    })),
  ];
}

/**
 * Every citation of a document outside the repository in a file: section signs and numbers in
 * any line, and the bundle-build spec's codes in its comments. Markdown (docs/) may use the stage
 * and step codes: docs/reference is where the product's vocabulary is defined.
 */
export function outsideCitations(text: string, comments: readonly CommentLine[]): Citation[] {
  return [
    ...text.split('\n').flatMap((line, i) => sectionCitations(line, { line: i + 1, column: 1 })),
    ...comments.flatMap(codeCitations),
  ].sort((a, b) => a.line - b.line || a.column - b.column);
}
