/**
 * The anchors GitHub gives the headings of a Markdown file, so that a `file.md#anchor` link can be
 * held against them. GitHub renders a heading's inline Markdown to text, lowercases it, drops every
 * character that is not a letter, mark, number, `_`, `-` or space, turns each space into `-`, and
 * numbers repeats: the second `## Usage` is `#usage-1`.
 */

/** A heading's rendered text: code spans and links keep their text, emphasis and tags go. */
function headingText(markdown: string): string {
  return (
    markdown
      // Images show nothing of themselves in the anchor, links their text.
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/`([^`]*)`/g, '$1')
      // Emphasis markers at word edges; an underscore inside a word (snake_case) stays.
      .replace(/(^|\W)[*_]{1,3}(?=\S)/g, '$1')
      .replace(/(?<=\S)[*_]{1,3}(?=\W|$)/g, '')
  );
}

/** The slug of one heading's Markdown, before repeats are numbered. */
export function githubSlug(heading: string): string {
  return headingText(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
/** Anchors written as HTML: `<a name="x">`, `<span id="x">`. */
const HTML_ANCHOR = /<[a-z][^>]*\s(?:id|name)=["']([^"']+)["']/gi;

/** The text of each heading of a Markdown document, in order (fenced code skipped). */
export function headings(markdown: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  let previous = '';
  for (const line of markdown.split('\n')) {
    const opening = FENCE.exec(line)?.[1];
    if (fence) {
      if (opening && opening[0] === fence[0] && opening.length >= fence.length) fence = undefined;
      previous = '';
      continue;
    }
    if (opening) {
      fence = opening;
      previous = '';
      continue;
    }
    const atx = ATX_HEADING.exec(line);
    if (atx) found.push(atx[1] ?? '');
    // A line of = or - under a paragraph line makes that line a heading (not under a list or table).
    else if (SETEXT_UNDERLINE.test(line) && /^ {0,3}[^\s|>*+-]/.test(previous))
      found.push(previous.trim());
    previous = atx ? '' : line;
  }
  return found;
}

/** Every anchor a Markdown document has: its headings' slugs, numbered as GitHub numbers them, and HTML ids. */
export function markdownAnchors(markdown: string): Set<string> {
  // Numbered as github-slugger numbers them: a taken slug gets -1, -2, … of its base.
  const occurrences = new Map<string, number>();
  for (const heading of headings(markdown)) {
    const base = githubSlug(heading);
    let slug = base;
    while (occurrences.has(slug)) {
      const n = occurrences.get(base)! + 1;
      occurrences.set(base, n);
      slug = `${base}-${n}`;
    }
    occurrences.set(slug, 0);
  }
  const anchors = new Set(occurrences.keys());
  for (const match of markdown.matchAll(HTML_ANCHOR)) anchors.add(match[1]!);
  return anchors;
}
