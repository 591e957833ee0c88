// Environment files the runner reads after a step: GITHUB_OUTPUT, GITHUB_ENV and
// GITHUB_STATE hold `name=value` lines and heredocs (`name<<DELIM`, value lines,
// `DELIM`); GITHUB_PATH holds one directory a line. Parsing follows the runner's
// SetEnvFileCommand on Linux: lines end at LF (a CR stays in the value), empty lines
// are skipped, a heredoc value is the text between its first and closing line
// without the final newline, and a missing delimiter or empty name is an error
// that fails the step.

export class FileCommandError extends Error {}

export function parseKeyValueFile(text: string, file: string): Record<string, string> {
  const values: Record<string, string> = {};
  let index = 0;
  const readLine = (): string | undefined => {
    if (index >= text.length) return undefined;
    const lf = text.indexOf('\n', index);
    const start = index;
    if (lf < 0) {
      index = text.length;
      return text.slice(start);
    }
    index = lf + 1;
    return text.slice(start, lf);
  };
  for (let line = readLine(); line !== undefined; line = readLine()) {
    if (line === '') continue;
    const eq = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (eq >= 0 && (heredoc < 0 || eq < heredoc)) {
      const name = line.slice(0, eq);
      if (name === '') throw new FileCommandError(`${file}: invalid format '${line}': the name must not be empty`);
      values[name] = line.slice(eq + 1);
    } else if (heredoc >= 0) {
      const name = line.slice(0, heredoc);
      const delimiter = line.slice(heredoc + 2);
      if (name === '' || delimiter === '') {
        throw new FileCommandError(`${file}: invalid format '${line}': the name and the delimiter must not be empty`);
      }
      const start = index;
      let end = index;
      for (;;) {
        const lineStart = index;
        const value = readLine();
        if (value === undefined)
          throw new FileCommandError(`${file}: matching delimiter not found '${delimiter}' for '${name}'`);
        if (value === delimiter) break;
        end = index > lineStart && text[index - 1] === '\n' ? index - 1 : index;
      }
      values[name] = end > start ? text.slice(start, end) : '';
    } else {
      throw new FileCommandError(`${file}: invalid format '${line}'`);
    }
  }
  return values;
}

export function parsePathFile(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}
