/**
 * What the guest scripts print: `result <key> <value>` lines (a step's facts) and, from the seal
 * checklist, `check <name> pass|fail <detail>` lines. Anything else is ignored, so a tool that
 * writes to stdout cannot forge a result unless it prints a whole such line.
 */
export interface ScriptOutput {
  results: Map<string, string>;
  checks: SealCheck[];
}

export interface SealCheck {
  name: string;
  passed: boolean;
  detail: string;
}

export function parseScriptOutput(text: string): ScriptOutput {
  const results = new Map<string, string>();
  const checks: SealCheck[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const result = /^result ([a-z0-9-]+)(?: (.*))?$/.exec(line);
    if (result) {
      results.set(result[1]!, (result[2] ?? '').trim());
      continue;
    }
    const check = /^check ([a-z0-9-]+) (pass|fail)(?: (.*))?$/.exec(line);
    if (check)
      checks.push({ name: check[1]!, passed: check[2] === 'pass', detail: check[3] ?? '' });
  }
  return { results, checks };
}

/** A result that must be there; the error names the script and the key. */
export function requiredResult(output: ScriptOutput, script: string, key: string): string {
  const value = output.results.get(key);
  if (value === undefined)
    throw new Error(`guest script ${script} printed no "result ${key}" line`);
  return value;
}

/** An epoch-seconds result as a number. */
export function epochResult(output: ScriptOutput, script: string, key = 'clock'): number {
  const text = requiredResult(output, script, key);
  const value = Number(text);
  if (!/^\d+$/.test(text))
    throw new Error(`guest script ${script} printed "${key} ${text}", not epoch seconds`);
  return value;
}
