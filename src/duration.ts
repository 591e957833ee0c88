// Durations, both ways: parsed as Go writes them (Timoni's --timeout: `5m`, `90s`, `1h30m`,
// `1m30.5s`, `500ms`; a bare number is seconds) and formatted as people read them (`850 ms`,
// `12.3 s`, `2 min 05 s`), or, for a time limit the user set, in the flag's own notation
// (`5m`, `1m30s`), so that a message echoes `--timeout 5m` as 5m, not as 300000 ms.
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

export function formatDuration(milliseconds: number): string {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) return '–';
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A time limit in the notation `--timeout` takes, as Go writes it without zero parts: `5m`, `1h30m`, `1m30.5s`, `500ms`. */
export function formatLimit(milliseconds: number): string {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) return '–';
  if (milliseconds < 1000) return `${Math.round(milliseconds)}ms`;
  const hours = Math.floor(milliseconds / 3_600_000);
  const minutes = Math.floor((milliseconds % 3_600_000) / 60_000);
  const seconds = Math.round(milliseconds % 60_000) / 1000;
  return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds ? `${seconds}s` : ''}`;
}
