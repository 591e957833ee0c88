// A unified diff of two texts, line by line (Myers' algorithm), as `diff -u` prints it.
// Pure; no dependency.

type Edit = { op: ' ' | '-' | '+'; line: string };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The shortest edit script turning `a` into `b` (Myers 1986, greedy forward search). */
function editScript(a: string[], b: string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let done = false;
  for (let d = 0; d <= max && !done; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        done = true;
        break;
      }
    }
  }
  // Walk back through the saved frontiers to recover the path.
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const frontier = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && frontier[offset + k - 1]! < frontier[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : frontier[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      edits.push({ op: ' ', line: a[x - 1]! });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) edits.push({ op: '+', line: b[y - 1]! });
      else edits.push({ op: '-', line: a[x - 1]! });
    }
    x = prevX;
    y = prevY;
  }
  return edits.reverse();
}

function range(start: number, count: number): string {
  // `diff -u` prints the line before the hunk when it is empty.
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/**
 * The unified diff of `from` and `to` with `context` lines around each change, headed
 * `--- fromName` / `+++ toName`; an empty string when the texts are equal.
 */
export function unifiedDiff(from: string, to: string, fromName = 'live', toName = 'desired', context = 3): string {
  const edits = editScript(splitLines(from), splitLines(to));
  if (edits.every((edit) => edit.op === ' ')) return '';
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  let i = 0;
  while (i < edits.length) {
    // Find the next change, then extend the hunk while changes are close enough.
    while (i < edits.length && edits[i]!.op === ' ') i++;
    if (i >= edits.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    for (;;) {
      while (end < edits.length && edits[end]!.op !== ' ') end++;
      let next = end;
      while (next < edits.length && edits[next]!.op === ' ') next++;
      if (next < edits.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(edits.length, end + context);
    let aStart = 0;
    let bStart = 0;
    for (let j = 0; j < start; j++) {
      if (edits[j]!.op !== '+') aStart++;
      if (edits[j]!.op !== '-') bStart++;
    }
    const hunk = edits.slice(start, stop);
    const aCount = hunk.filter((edit) => edit.op !== '+').length;
    const bCount = hunk.filter((edit) => edit.op !== '-').length;
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`);
    for (const edit of hunk) out.push(`${edit.op}${edit.line}`);
    i = stop;
  }
  return `${out.join('\n')}\n`;
}
