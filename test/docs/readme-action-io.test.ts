// The README's "Inputs and outputs" tables say what action.yml declares: every input and
// every output of action.yml is a row, no row names one that action.yml lacks, no name is
// listed twice, and the default each input row states is action.yml's (`required` for an
// input without a default, an empty cell for an empty default).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface ActionInput {
  required?: boolean;
  default?: unknown;
}

interface ActionFile {
  inputs: Record<string, ActionInput>;
  outputs: Record<string, unknown>;
}

const action = parse(readFileSync(`${root}action.yml`, 'utf8')) as ActionFile;
const readme = readFileSync(`${root}README.md`, 'utf8');

/** The README's section from "### Inputs and outputs" to the next heading of its level or above. */
function section(): string {
  const start = readme.indexOf('\n### Inputs and outputs\n');
  expect(start, 'README has a section "### Inputs and outputs"').toBeGreaterThan(-1);
  const rest = readme.slice(start + 1);
  const end = rest.search(/\n#{1,3} /);
  return end === -1 ? rest : rest.slice(0, end);
}

/** The cells of the rows of the table whose header's first cell is `first` ("input", "output"). */
function tableRows(text: string, first: string): string[][] {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => cells(line)[0] === first);
  expect(header, `the section has a table whose first column is "${first}"`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(cells(line));
  }
  return rows;
}

/** A Markdown table row's cells, trimmed; `\|` inside a cell is not a separator. */
function cells(line: string): string[] {
  if (!line.startsWith('|')) return [];
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The name of a row: its first cell, which must be one name in backticks. */
function rowName(row: string[]): string {
  const name = /^`([a-z][a-z0-9-]*)`$/.exec(row[0] ?? '')?.[1];
  expect(name, `a row's first cell is one name in backticks: ${JSON.stringify(row[0])}`).toBeDefined();
  return name as string;
}

/** What a README default cell states: `required`, '' for an empty cell, or the text in backticks. */
function statedDefault(cell: string): { required: true } | { value: string } {
  if (cell === 'required') return { required: true };
  if (cell === '') return { value: '' };
  const quoted = /^`([^`]*)`$/.exec(cell);
  expect(
    quoted,
    `a default cell is "required", empty or one value in backticks: ${JSON.stringify(cell)}`,
  ).not.toBeNull();
  return { value: (quoted as RegExpExecArray)[1] as string };
}

/** What action.yml declares of an input's default, in the README's terms. */
function declaredDefault(input: ActionInput): { required: true } | { value: string } {
  if (input.required === true && input.default === undefined) return { required: true };
  return { value: input.default === undefined ? '' : String(input.default) };
}

function missingAndExtra(
  declared: string[],
  listed: string[],
): { missing: string[]; notInActionYml: string[]; twice: string[] } {
  return {
    missing: declared.filter((name) => !listed.includes(name)),
    notInActionYml: listed.filter((name) => !declared.includes(name)),
    twice: listed.filter((name, index) => listed.indexOf(name) !== index),
  };
}

describe('the README\'s "Inputs and outputs" and action.yml', () => {
  it('list the same inputs', () => {
    const listed = tableRows(section(), 'input').map(rowName);
    const check = missingAndExtra(Object.keys(action.inputs), listed);
    expect(check.missing, 'inputs of action.yml missing from the README').toEqual([]);
    expect(check.notInActionYml, 'inputs the README lists that action.yml lacks').toEqual([]);
    expect(check.twice, 'inputs the README lists twice').toEqual([]);
  });

  it('list the same outputs', () => {
    const listed = tableRows(section(), 'output').map(rowName);
    const check = missingAndExtra(Object.keys(action.outputs), listed);
    expect(check.missing, 'outputs of action.yml missing from the README').toEqual([]);
    expect(check.notInActionYml, 'outputs the README lists that action.yml lacks').toEqual([]);
    expect(check.twice, 'outputs the README lists twice').toEqual([]);
  });

  it("state each input's default as action.yml declares it", () => {
    const wrong: string[] = [];
    for (const row of tableRows(section(), 'input')) {
      const name = rowName(row);
      const input = action.inputs[name];
      if (!input) continue; // named by the test above
      const stated = statedDefault(row[1] ?? '');
      const declared = declaredDefault(input);
      if (JSON.stringify(stated) !== JSON.stringify(declared)) {
        wrong.push(`${name}: README ${JSON.stringify(stated)}, action.yml ${JSON.stringify(declared)}`);
      }
    }
    expect(wrong, "inputs whose README default is not action.yml's").toEqual([]);
  });

  it('describe every row', () => {
    for (const [table, column] of [
      ['input', 2],
      ['output', 1],
    ] as const) {
      for (const row of tableRows(section(), table))
        expect(row[column] ?? '', `${table} ${rowName(row)} has a description`).toMatch(/\S/);
    }
  });
});
