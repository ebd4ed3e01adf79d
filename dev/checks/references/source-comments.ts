import path from 'node:path';
import ts from 'typescript';

/** One line of a comment: its 1-based line and column in the file, and its text. */
export interface CommentLine {
  line: number;
  column: number;
  text: string;
}

const SCRIPT = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs']);
const HASH = new Set(['.sh', '.bash', '.yaml', '.yml', '.toml', '.py']);
const HASH_NAMES = new Set(['Containerfile', 'Dockerfile', '.gitignore', '.containerignore']);
const SLASH = new Set(['.go']);

export type CommentSyntax = 'script' | 'hash' | 'slash' | 'none';

/** How a file writes its comments, by its name, or its first line for a script without one. */
export function commentSyntax(file: string, text: string): CommentSyntax {
  const base = path.basename(file);
  const ext = path.extname(base);
  if (SCRIPT.has(ext)) return 'script';
  if (HASH.has(ext) || HASH_NAMES.has(base) || base.startsWith('.prettierignore')) return 'hash';
  if (SLASH.has(ext)) return 'slash';
  return text.startsWith('#!') ? 'hash' : 'none';
}

/** Splits a comment found at `offset` of `text` into its lines, with their positions. */
function linesOf(text: string, offset: number, comment: string): CommentLine[] {
  const before = text.slice(0, offset);
  const first = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return comment.split('\n').map((line, i) => ({
    line: first + i,
    column: i === 0 ? column : 1,
    text: line,
  }));
}

/**
 * The comments of TypeScript or JavaScript, as the compiler sees them: every comment before or
 * after a token, so that `//` inside a string, a template or a regular expression is no comment.
 */
function scriptComments(file: string, text: string): CommentLine[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const starts = new Map<number, ts.CommentRange>();
  const collect = (ranges: ts.CommentRange[] | undefined): void =>
    ranges?.forEach((range) => starts.set(range.pos, range));
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return [...starts.values()]
    .sort((a, b) => a.pos - b.pos)
    .flatMap((range) => linesOf(text, range.pos, text.slice(range.pos, range.end)));
}

/** Where a `#` comment starts on a line: a `#` at its start or after a space, outside quotes. */
function hashCommentStart(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return i;
  }
  return -1;
}

function hashComments(text: string): CommentLine[] {
  return text.split('\n').flatMap((line, i) => {
    const start = hashCommentStart(line);
    return start < 0 ? [] : [{ line: i + 1, column: start + 1, text: line.slice(start) }];
  });
}

/** Where a Go literal that opens at `i` ("…", '…' or a raw `…`) ends, just after it. */
function literalEnd(text: string, i: number): number {
  const quote = text[i]!;
  const raw = quote === '`';
  let j = i + 1;
  while (j < text.length && text[j] !== quote && (raw || text[j] !== '\n'))
    j += !raw && text[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** `//` and `/* … *\/` comments of Go, outside its literals. */
function slashComments(text: string): CommentLine[] {
  const found: CommentLine[] = [];
  let i = 0;
  while (i < text.length) {
    if ('"\'`'.includes(text[i]!)) {
      i = literalEnd(text, i);
      continue;
    }
    const line = text.startsWith('//', i);
    if (!line && !text.startsWith('/*', i)) {
      i += 1;
      continue;
    }
    const close = line ? text.indexOf('\n', i) : text.indexOf('*/', i);
    const stop = close < 0 ? text.length : close + (line ? 0 : 2);
    found.push(...linesOf(text, i, text.slice(i, stop)));
    i = stop;
  }
  return found;
}

/** The comment lines of a source file; none for a file without comments (Markdown, JSON). */
export function sourceComments(file: string, text: string): CommentLine[] {
  switch (commentSyntax(file, text)) {
    case 'script':
      return scriptComments(file, text);
    case 'hash':
      return hashComments(text);
    case 'slash':
      return slashComments(text);
    default:
      return [];
  }
}
