// The bundle schema's rules in plain words. The schema timoni-fleet checks a bundle against
// (bundle.ts BUNDLE_SCHEMA) is a file of its own, loaded beside the user's: CUE's errors
// name its lines and print its regular expressions (`out of bound =~"^(oci|file)://.*$"`).
// Neither is anything a user can open or should have to read, so each error the schema
// takes part in says instead what the field must be, and points only at the user's lines.
import type { CueDiagnostic } from '../cue/index.js';

const NAME_RULE =
  'a lowercase name of 1 to 63 characters (letters a-z, digits, "-", "_" and "."; starting and ending with a letter or digit)';

interface Rule {
  /** The field's CUE path, `*` for any one label. */
  path: string;
  rule: string;
}

const RULES: Rule[] = [
  { path: 'bundle', rule: 'a bundle has the fields apiVersion, name and instances' },
  { path: 'bundle.apiVersion', rule: 'apiVersion must be "v1alpha1"' },
  { path: 'bundle.name', rule: `the bundle name must be ${NAME_RULE}` },
  {
    path: 'bundle.instances',
    rule: `instances is a struct of instances by name; an instance name must be ${NAME_RULE}`,
  },
  { path: 'bundle.instances.*', rule: 'an instance has the fields module, namespace and values' },
  {
    path: 'bundle.instances.*.module',
    rule: 'module has the fields url, version (default "latest") and digest (optional), and no other',
  },
  { path: 'bundle.instances.*.module.url', rule: 'the module URL must be a string starting with oci:// or file://' },
  { path: 'bundle.instances.*.module.version', rule: 'the module version must be a string (a tag, or "latest")' },
  { path: 'bundle.instances.*.module.digest', rule: 'the module digest must be a string (sha256:...)' },
  { path: 'bundle.instances.*.namespace', rule: `the namespace must be ${NAME_RULE}` },
  { path: 'bundle.instances.*.values', rule: 'values must be a struct' },
];

/** CUE path labels, quoted labels kept whole (`bundle.instances."my.app".module`). */
function labels(path: string): string[] {
  return path.match(/"(?:[^"\\]|\\.)*"|[^.]+/g) ?? [];
}

function matches(pattern: string, path: string): boolean {
  const want = pattern.split('.');
  const have = labels(path);
  return want.length === have.length && want.every((label, i) => label === '*' || label === have[i]);
}

/** The rule of the field at `path`, if the schema has one. */
export function schemaRule(path: string): string | undefined {
  return RULES.find((r) => matches(r.path, path))?.rule;
}

/** The rule an error breaks: a field the schema does not allow breaks its parent's (an instance name that is no valid name is one). */
function ruleFor(diagnostic: CueDiagnostic): string | undefined {
  if (!isNotAllowed(diagnostic)) return schemaRule(diagnostic.path);
  const parent = labels(diagnostic.path).slice(0, -1).join('.');
  // Values are open: a field not allowed there is the user's own definition speaking.
  return matches('bundle.instances.*.values', parent) ? undefined : schemaRule(parent);
}

const isNotAllowed = (diagnostic: CueDiagnostic): boolean => diagnostic.message === 'field not allowed';

/**
 * The diagnostic without positions in the schema file, and, when the schema took part in
 * it, its message in plain words: the regular expression CUE prints replaced by the rule,
 * a field the schema does not allow followed by the fields it does.
 */
export function inPlainWords(diagnostic: CueDiagnostic, schemaFile: string): CueDiagnostic {
  const fromSchema = diagnostic.positions.some((p) => p.file === schemaFile);
  const rule = ruleFor(diagnostic);
  // The closed structs of the schema (bundle, an instance, module) refuse a field without naming their own line.
  if (!fromSchema && !(rule && isNotAllowed(diagnostic))) return diagnostic;
  const positions = diagnostic.positions.filter((p) => p.file !== schemaFile);
  if (!rule) return { ...diagnostic, positions };
  // `invalid value "x" (out of bound =~"^...$")`: the bound is the schema's text.
  const message = diagnostic.message.replace(/\s*\((?:out of bound|does not satisfy) .*\)$/, '');
  return { ...diagnostic, positions, message: `${message}: ${rule}` };
}
