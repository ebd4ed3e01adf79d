import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../control-plane/project-root.js';
import type { DocLink, LinkTargets } from './doc-links.js';
import { danglingReason, docLinks } from './doc-links.js';
import { markdownAnchors } from './github-slug.js';
import { outsideCitations } from './outside-citations.js';
import { sourceComments } from './source-comments.js';

/**
 * Not checked: generated copies of sources checked at their source (the Action's bundle, the OLM
 * bundle made from crds/ and operator/deploy, the types generated from the CRDs, the CRDs as
 * released, kept as they were), and this check's own sources, which spell out what it looks for.
 */
const SKIPPED = [
  /^action\/dist\//,
  /^bundle\//,
  /^crds\/released\//,
  /^operator\/api\/generated\//,
  /^package-lock\.json$/,
  /^dev\/checks\/references\//,
];
const TEXT =
  /\.(?:ts|mts|cts|js|mjs|cjs|md|ya?ml|sh|go|json|txt|toml)$|(?:^|\/)(?:Containerfile|Dockerfile|\.ci\/run)$/;

/** One problem, where it is: `file:line:column: what`. */
export interface Finding {
  file: string;
  line: number;
  column: number;
  message: string;
}

export function formatFinding(f: Finding): string {
  return `${f.file}:${f.line}:${f.column}: ${f.message}`;
}

/** The repository's files as git knows them (tracked, and new ones not ignored). */
function repositoryFiles(root: string): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return [...new Set(listed.split('\0').filter(Boolean))].sort();
}

function linkTargets(root: string, files: readonly string[]): LinkTargets {
  const known = new Set(files);
  const folders = new Set(
    files.flatMap((f) =>
      f
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  const anchors = new Map<string, ReadonlySet<string>>();
  return {
    has: (target) => target === '' || known.has(target) || folders.has(target),
    anchors: (file) => {
      let found = anchors.get(file);
      if (!found) {
        found = markdownAnchors(readFileSync(path.join(root, file), 'utf8'));
        anchors.set(file, found);
      }
      return found;
    },
  };
}

/** The findings of one file: citations of outside documents, and links that lead nowhere. */
export function checkFile(file: string, text: string, targets: LinkTargets): Finding[] {
  const citations = outsideCitations(text, sourceComments(file, text)).map((c) => ({
    file,
    line: c.line,
    column: c.column,
    message: `"${c.found}": ${c.why}`,
  }));
  const dangling = docLinks(file, text).flatMap((link: DocLink) => {
    const why = danglingReason(link, targets);
    return why
      ? [{ file, line: link.line, column: link.column, message: `"${link.written}": ${why}` }]
      : [];
  });
  return [...citations, ...dangling].sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Checks every text file of the repository; the findings, in file order. */
export function checkRepository(root = projectRoot()): Finding[] {
  const files = repositoryFiles(root);
  const targets = linkTargets(root, files);
  return files
    .filter((f) => TEXT.test(f) && !SKIPPED.some((g) => g.test(f)))
    .flatMap((file) => checkFile(file, readFileSync(path.join(root, file), 'utf8'), targets));
}
