import { truncated } from './diagnostics-bounds.js';
import type { Diagnostics } from './diagnostics-facts.js';
import { renderMarkdown } from './render-markdown.js';

/** A report as it is written: the JSON and the Markdown of the same facts. */
export interface DiagnosticsFiles {
  json: string;
  markdown: string;
}

type Shrink = [string, (d: Diagnostics) => void];

const LOG_CUT_BYTES = 8 * 1024;

/** Ways to make a report smaller, mildest first; each is named in `truncated` when applied. */
const SHRINKS: readonly Shrink[] = [
  [
    `pod logs cut to their last ${LOG_CUT_BYTES / 1024} KiB`,
    (d) =>
      d.jobs.forEach((j) =>
        j.pods.forEach((p) => {
          if (p.log && Buffer.byteLength(p.log) > LOG_CUT_BYTES)
            p.log = `…[truncated]\n${Buffer.from(p.log).subarray(-LOG_CUT_BYTES).toString('utf8')}`;
        }),
      ),
  ],
  [
    'Events cut to the newest 5 per object',
    (d) => d.objects.forEach((o) => (o.events = o.events.slice(0, 5))),
  ],
  [
    'guest lists cut to 20 entries',
    (d) => {
      if (!d.guest) return;
      d.guest.clusterOperators = d.guest.clusterOperators.slice(0, 20);
      d.guest.nodes = d.guest.nodes.slice(0, 20);
      d.guest.warnings = d.guest.warnings.slice(0, 5);
    },
  ],
  ['pod logs left out', (d) => d.jobs.forEach((j) => j.pods.forEach((p) => delete p.log))],
  ['Events left out', (d) => d.objects.forEach((o) => (o.events = []))],
  ['objects after the first 10 left out', (d) => (d.objects = d.objects.slice(0, 10))],
  [
    "only each object's phase and Ready condition kept; Jobs and the guest left out",
    (d) => {
      d.objects = d.objects.map((o) => ({
        ...o,
        status: {},
        conditions: o.conditions.filter((c) => c.type === 'Ready'),
      }));
      d.jobs = [];
      delete d.guest;
    },
  ],
];

const render = (d: Diagnostics): DiagnosticsFiles => ({
  json: JSON.stringify(d, null, 2) + '\n',
  markdown: renderMarkdown(d),
});
const size = (files: DiagnosticsFiles): number =>
  Buffer.byteLength(files.json) + Buffer.byteLength(files.markdown);

/**
 * The report's files within `maxBytes` together (docs/diagnostics.md#bounds): parts are cut,
 * mildest first, and each cut is recorded in the report itself; as a last resort each file is
 * cut to half the bound with a marker.
 */
export function fitDiagnostics(diagnostics: Diagnostics, maxBytes: number): DiagnosticsFiles {
  const fitted = structuredClone(diagnostics);
  let files = render(fitted);
  for (const [what, shrink] of SHRINKS) {
    if (size(files) <= maxBytes) return files;
    shrink(fitted);
    fitted.truncated.push(what);
    files = render(fitted);
  }
  if (size(files) <= maxBytes) return files;
  return {
    json: truncated(files.json, Math.floor(maxBytes / 2)),
    markdown: truncated(files.markdown, Math.floor(maxBytes / 2)),
  };
}
