// Objects rendered as YAML for people to read: keys sorted, long strings never folded,
// so that the same object always renders to the same lines.
import { stringify } from 'yaml';

export function renderYaml(value: unknown): string {
  return stringify(value, { sortMapEntries: true, lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
}
