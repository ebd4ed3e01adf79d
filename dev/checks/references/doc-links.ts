import path from 'node:path';

/** A link to a file of the repository, maybe to an anchor in it, as some file writes it. */
export interface DocLink {
  line: number;
  column: number;
  /** As written. */
  written: string;
  /** The file it names, relative to the repository root. */
  target: string;
  anchor?: string;
}

/** What an anchor is made of (a slug); `#${…}` in a template is none, and is not checked. */
const ANCHOR = String.raw`(?:#([\p{L}\p{N}_%-]*))?`;
/**
 * `docs/….md` and `README.md` named from the repository root, as code comments cite them; not
 * part of a longer path (`../docs/`, a URL's `/blob/main/docs/`).
 */
const ROOT_REFERENCE = new RegExp(
  String.raw`(?<![\w./-])((?:docs/[\w./-]+?|README)\.md)(?![\w-])${ANCHOR}`,
  'gu',
);
/** The repository's own pages on GitHub (the Action's home, guestcluster/lease). */
const OWN_URL = new RegExp(
  String.raw`https://github\.com/guestcluster/lease/(?:blob|tree)/[^/\s]+/([\w./-]+)${ANCHOR}`,
  'gu',
);
/** A Markdown inline link's target: `](target)`, `](<target> "title")`. */
const INLINE_LINK = /\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g;
/** A Markdown link reference definition: `[name]: target`. */
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/;
const SCHEME = /^(?:[a-z][a-z\d+.-]*:|\/\/)/i;
const FENCE = /^ {0,3}(?:`{3,}|~{3,})/;

function decoded(anchor: string | undefined): string | undefined {
  if (anchor === undefined) return undefined;
  try {
    return decodeURIComponent(anchor);
  } catch {
    return anchor;
  }
}

function split(target: string): { file: string; anchor?: string } {
  const hash = target.indexOf('#');
  return hash < 0
    ? { file: target }
    : { file: target.slice(0, hash), anchor: decoded(target.slice(hash + 1)) };
}

/** A Markdown line with its code spans blanked: a link in backticks is text. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length));
}

/** The relative link targets of one Markdown line, resolved against the file's folder. */
function markdownLinks(file: string, line: string, lineNo: number): DocLink[] {
  const text = withoutCodeSpans(line);
  const found = [...text.matchAll(INLINE_LINK)].map((m) => ({
    written: m[1]!,
    column: m.index + m[0].indexOf(m[1]!) + 1,
  }));
  const definition = LINK_DEFINITION.exec(text);
  if (definition) found.push({ written: definition[1]!, column: text.indexOf(definition[1]!) + 1 });
  return found
    .filter(({ written }) => !SCHEME.test(written))
    .map(({ written, column }) => {
      const { file: target, anchor } = split(written);
      const resolved = !target
        ? file
        : target.startsWith('/')
          ? target.slice(1)
          : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
      return { line: lineNo, column, written, target: resolved.replace(/\/$/, ''), anchor };
    });
}

/** References from the root and to the repository's own GitHub pages, in one line of any file. */
function rootLinks(line: string, lineNo: number, taken: readonly DocLink[]): DocLink[] {
  const inLink = (column: number): boolean =>
    taken.some((l) => column >= l.column && column < l.column + l.written.length);
  const found: DocLink[] = [];
  for (const m of line.matchAll(ROOT_REFERENCE))
    if (!inLink(m.index + 1))
      found.push({
        line: lineNo,
        column: m.index + 1,
        written: m[0],
        target: m[1]!,
        anchor: decoded(m[2]),
      });
  for (const m of line.matchAll(OWN_URL))
    found.push({
      line: lineNo,
      column: m.index + 1,
      written: m[0],
      target: m[1]!.replace(/\/$/, ''),
      anchor: decoded(m[2]),
    });
  return found;
}

/**
 * Every link a file makes to the repository's files: `docs/…md#anchor` from the root anywhere
 * (code comments, strings, YAML), the repository's GitHub URLs, and in Markdown its relative
 * links (`other.md#x`, `#x`, `../samples/`) outside fenced code and code spans.
 */
export function docLinks(file: string, text: string): DocLink[] {
  const markdown = file.endsWith('.md');
  let fenced = false;
  return text.split('\n').flatMap((line, i) => {
    if (markdown && FENCE.test(line)) fenced = !fenced;
    const own = markdown && !fenced ? markdownLinks(file, line, i + 1) : [];
    return [...own, ...rootLinks(line, i + 1, own)];
  });
}

/** What a link is held against: the repository's files and the anchors of its Markdown. */
export interface LinkTargets {
  /** Whether the repository has this file or folder. */
  has(target: string): boolean;
  /** The anchors of a Markdown file of the repository. */
  anchors(markdownFile: string): ReadonlySet<string>;
}

/** Why a link leads nowhere, or undefined when it does. */
export function danglingReason(link: DocLink, targets: LinkTargets): string | undefined {
  if (!targets.has(link.target)) return `${link.target} does not exist`;
  if (!link.anchor || !link.target.endsWith('.md')) return undefined;
  if (targets.anchors(link.target).has(link.anchor)) return undefined;
  return `${link.target} has no heading with the anchor #${link.anchor}`;
}
