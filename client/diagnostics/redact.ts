/**
 * What looks like a credential in text the diagnostics copy (a log, a message): a PEM block, a
 * bearer token, a JSON Web Token, or a kubeconfig's, a docker config's or a form's secret field.
 * The agent never logs one (docs/diagnostics.md#what-is-never-collected); this is a second line.
 */
const PATTERNS: readonly [RegExp, string][] = [
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g, '[redacted PEM block]'],
  [/\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, '$1 [redacted]'],
  [/\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*/g, '[redacted token]'],
  [
    /(["']?)\b(client-key-data|client-certificate-data|certificate-authority-data|token|id-token|refresh-token|password|passwd|auth|identitytoken|registrytoken|secret|apikey|api-key|access_token)\1(\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;}]+)/gi,
    '$1$2$1$3[redacted]',
  ],
];

export function redact(text: string): string {
  let result = text;
  for (const [pattern, replacement] of PATTERNS) result = result.replace(pattern, replacement);
  return result;
}
