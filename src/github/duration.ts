// Go-style durations as Timoni's --timeout takes them: `5m`, `90s`, `1h30m`, `1m30.5s`, `500ms`.
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * (UNITS[match[2] as string] as number);
    consumed = part.lastIndex;
  }
  return consumed === trimmed.length && consumed > 0 ? total : undefined;
}
