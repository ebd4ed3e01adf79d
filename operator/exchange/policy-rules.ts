import { Environment } from '@marcbachmann/cel-js';

/** One rule of a policy, as written. */
export interface Rule {
  name: string;
  expression: string;
  namespace: string;
  serviceAccount: string;
}

/** A rule ready to run: its expression compiled once per policy generation. */
export interface CompiledRule extends Rule {
  matches: (claims: Record<string, unknown>) => boolean;
}

export type CompileResult =
  { ok: true; rules: CompiledRule[] } | { ok: false; rule: string; message: string };

/** Rules see one variable, `claims`: the token's verified claims. */
const environment = new Environment({ limits: { maxAstNodes: 1000 } }).registerVariable(
  'claims',
  'map',
);

/** A claim set as CEL sees it: JSON numbers that are whole become ints, so `claims.n == 1` holds. */
function celValue(value: unknown): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(celValue);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return value;
}

function compileRule(rule: Rule): CompiledRule | string {
  try {
    const program = environment.parse(rule.expression);
    const checked = program.check();
    if (!checked.valid) return checked.error?.message ?? 'does not type-check';
    if (checked.type !== 'bool' && checked.type !== 'dyn')
      return `is of type ${checked.type}, not bool`;
    const matches = (claims: Record<string, unknown>): boolean => {
      try {
        // A claim the token lacks is an evaluation error: the rule does not admit the token.
        return program({ claims: celValue(claims) }) === true;
      } catch {
        return false;
      }
    };
    return { ...rule, matches };
  } catch (error) {
    return (error as Error).message;
  }
}

/** Compiles a policy's rules; the first that does not compile is named, with the compiler's words. */
export function compileRules(policy: { spec: { rules: readonly Rule[] } }): CompileResult {
  const rules: CompiledRule[] = [];
  for (const rule of policy.spec.rules) {
    const compiled = compileRule(rule);
    if (typeof compiled === 'string')
      return { ok: false, rule: rule.name, message: firstLine(compiled) };
    rules.push(compiled);
  }
  return { ok: true, rules };
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
