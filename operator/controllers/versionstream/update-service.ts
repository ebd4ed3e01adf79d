import type { HttpGetter } from './http-get.js';
import type { UpdateGraph } from './update-graph.js';
import { parseUpdateGraph } from './update-graph.js';

/** The graph of one channel and arch, or why the update service gave none. */
export type GraphAnswer =
  { kind: 'graph'; graph: UpdateGraph } | { kind: 'failed'; message: string };

/** `<base>/api/upgrades_info/v1/graph?channel=<channel>&arch=<arch>`, as the cluster-version operator asks. */
export function graphUrl(baseUrl: string, channel: string, arch: string): string {
  const query = new URLSearchParams({ channel, arch });
  return `${baseUrl}/api/upgrades_info/v1/graph?${query.toString()}`;
}

/** Asks the update service (or the admin's mirror of it) for a channel's graph. */
export async function fetchUpdateGraph(
  http: HttpGetter,
  baseUrl: string,
  channel: string,
  arch: string,
): Promise<GraphAnswer> {
  const url = graphUrl(baseUrl, channel, arch);
  const answer = await http.get(url, 'application/json');
  if (answer.kind !== 'ok') return { kind: 'failed', message: answer.message };
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return { kind: 'failed', message: `${url} did not answer with JSON` };
  }
  const graph = parseUpdateGraph(body);
  return 'invalid' in graph
    ? { kind: 'failed', message: `${url}: ${graph.invalid}` }
    : { kind: 'graph', graph };
}
