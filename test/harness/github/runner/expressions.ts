// `${{ ... }}` in input defaults (e.g. `default: ${{ github.token }}`), evaluated as
// the runner does before it sets INPUT_ variables. Supported: context paths
// (github.*, runner.*, env.*, including github.event.*), string literals in single
// quotes and `a || b`; anything else is refused with the expression named.

export type ContextValue =
  string | number | boolean | null | undefined | ContextValue[] | { [key: string]: ContextValue };

export type Contexts = Record<string, ContextValue>;

function lookup(path: string, contexts: Contexts, source: string): ContextValue {
  const parts = path.split('.');
  if (!Object.prototype.hasOwnProperty.call(contexts, parts[0] ?? ''))
    throw new Error(`unknown context '${parts[0] ?? ''}' in expression '${source}'`);
  let value: ContextValue = contexts;
  for (const part of parts) {
    if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const record: { [key: string]: ContextValue } = value;
    value = Object.prototype.hasOwnProperty.call(record, part) ? record[part] : undefined;
  }
  return value;
}

function evaluateTerm(term: string, contexts: Contexts, source: string): ContextValue {
  const t = term.trim();
  if (/^'(?:[^']|'')*'$/.test(t)) return t.slice(1, -1).replace(/''/g, "'");
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null') return null;
  if (/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/.test(t)) return lookup(t, contexts, source);
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  throw new Error(`unsupported expression '${source}' (the harness evaluates context paths, 'literals' and ||)`);
}

const truthy = (v: ContextValue): boolean => v !== null && v !== undefined && v !== '' && v !== false && v !== 0;

function asString(v: ContextValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Replaces every `${{ expr }}` in `text` with its value. */
export function evaluateTemplate(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{(.*?)\}\}/gs, (_match, expr: string) => {
    const terms = expr.split('||');
    let value: ContextValue = undefined;
    for (const term of terms) {
      value = evaluateTerm(term, contexts, expr.trim());
      if (truthy(value)) break;
    }
    return asString(value);
  });
}
