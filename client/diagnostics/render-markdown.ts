import type {
  ConditionFacts,
  Diagnostics,
  EventFacts,
  GuestFacts,
  JobFacts,
  ObjectFacts,
} from './diagnostics-facts.js';

type Cell = string | number | boolean | undefined;

/** A table cell: one line, no pipe to end it early. */
const cell = (value: string | number | boolean | undefined): string =>
  String(value ?? '')
    .replaceAll('\\', '\\\\')
    .replaceAll('|', '\\|')
    .replace(/\s*\n\s*/g, ' ');

function table(header: string[], rows: Cell[][]): string[] {
  if (rows.length === 0) return [];
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
    '',
  ];
}

const conditionRows = (conditions: ConditionFacts[]): Cell[][] =>
  conditions.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime]);

const eventRows = (events: EventFacts[]): Cell[][] =>
  events.map((e) => [e.lastSeen, e.type, e.reason, e.count, e.object ?? '', e.message]);

/** A fence longer than any backtick run in the text, so a log cannot end it. */
function fenced(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [fence + 'text', text, fence, ''];
}

function objectSection(object: ObjectFacts): string[] {
  const where = object.namespace ? `${object.namespace}/${object.name}` : object.name;
  const lines = [`### ${object.kind} ${where}`, ''];
  if (object.note) return [...lines, `_${cell(object.note)}_`, ''];
  const fields = Object.entries(object.status).map(([k, v]) => `${k}: ${cell(v)}`);
  lines.push(
    `Phase: **${object.phase ?? '—'}**${fields.length ? ` · ${fields.join(' · ')}` : ''}`,
    '',
  );
  lines.push(
    ...table(
      ['Condition', 'Status', 'Reason', 'Message', 'Since'],
      conditionRows(object.conditions),
    ),
  );
  lines.push(
    ...table(
      ['Last seen', 'Type', 'Reason', 'Count', 'Object', 'Message'],
      eventRows(object.events),
    ),
  );
  return lines;
}

function jobSection(job: JobFacts): string[] {
  const lines = objectSection(job.job);
  for (const pod of job.pods) {
    lines.push(`#### Pod ${pod.name} (${pod.phase ?? 'unknown'})`, '');
    lines.push(
      ...table(
        ['Container', 'State', 'Reason', 'Exit code', 'Restarts', 'Message'],
        pod.containers.map((c) => [c.name, c.state, c.reason, c.exitCode, c.restarts, c.message]),
      ),
    );
    if (pod.log !== undefined) lines.push('Log tail:', '', ...fenced(pod.log));
    if (pod.logNote) lines.push(`_${cell(pod.logNote)}_`, '');
  }
  return lines;
}

function guestSection(guest: GuestFacts): string[] {
  const lines = ['## Guest cluster', ''];
  lines.push(`Endpoint: ${guest.endpoint ?? '—'} · reached: ${guest.reached ? 'yes' : 'no'}`, '');
  if (guest.note) lines.push(`_${cell(guest.note)}_`, '');
  lines.push(
    ...table(
      ['ClusterOperator', 'Versions', 'Available', 'Progressing', 'Degraded', 'Message'],
      guest.clusterOperators.map((co) => {
        const of = (type: string): ConditionFacts | undefined =>
          co.conditions.find((c) => c.type === type);
        const problem = of('Degraded')?.status === 'True' ? of('Degraded') : of('Available');
        return [
          co.name,
          co.versions.map((v) => `${v.name}=${v.version}`).join(', '),
          of('Available')?.status,
          of('Progressing')?.status,
          of('Degraded')?.status,
          problem?.message,
        ];
      }),
    ),
  );
  lines.push(
    ...table(
      ['Node', 'Ready', 'Kubelet'],
      guest.nodes.map((n) => [n.name, n.ready, n.kubeletVersion]),
    ),
  );
  lines.push(
    ...table(
      ['Last seen', 'Type', 'Reason', 'Count', 'Object', 'Message'],
      eventRows(guest.warnings),
    ),
  );
  return lines;
}

/** The report for people and job summaries; the same facts as the JSON. */
export function renderMarkdown(diagnostics: Diagnostics): string {
  const { target } = diagnostics;
  const lines = [
    `# Diagnostics: ${target.kind} ${target.namespace}/${target.name}`,
    '',
    `Collected at ${diagnostics.collectedAt}. No Secret content, kubeconfig or token is included.`,
    '',
  ];
  if (diagnostics.notes.length) lines.push(...diagnostics.notes.map((n) => `- ${cell(n)}`), '');
  if (diagnostics.bundles.length)
    lines.push(
      `Stored diagnostics: ${diagnostics.bundles.map((b) => `ConfigMap ${b}`).join(', ')}`,
      '',
    );
  lines.push('## Objects', '');
  for (const object of diagnostics.objects) lines.push(...objectSection(object));
  if (diagnostics.jobs.length) lines.push('## crc-agent Jobs', '');
  for (const job of diagnostics.jobs) lines.push(...jobSection(job));
  if (diagnostics.guest) lines.push(...guestSection(diagnostics.guest));
  if (diagnostics.truncated.length)
    lines.push(
      '## Cut to fit the bounds',
      '',
      ...diagnostics.truncated.map((t) => `- ${cell(t)}`),
      '',
    );
  return lines.join('\n');
}
