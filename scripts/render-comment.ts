// Renders a pull request comment (the Markdown timoni-fleet posts) to a PNG, for the README.
//
//   npx tsx scripts/render-comment.ts .fleet/demo/3-second-pull-request/comment.md docs/images/pr-comment.png \
//     --expand 1 --scale 2 --max-height 1150   # how docs/images/pr-comment.png was made
//
// The Markdown is turned into HTML as GitHub does closely enough (GitHub-flavoured Markdown
// through `marked`: tables, raw <details>/<summary> kept with their open state, ```diff blocks
// coloured line by line), styled with a small GitHub-like stylesheet, and screenshotted with
// headless Chromium (Debian's `chromium`, or the binary named by $CHROMIUM). The page is
// measured first, so the picture is as tall as the comment, up to --max-height (then it is
// cut there and fades out). If `pngquant` is installed the PNG is compressed with it.
//
// Options:
//   --width N        page width in CSS pixels (default 1000)
//   --max-height N   cut the picture at this height in CSS pixels (default 1400)
//   --scale N        device pixel ratio (default 1)
//   --expand N       open the first N collapsed <details> sections, as a reader who clicked
//                    them would see the comment (default 0: as posted)
//   --author NAME    the name in the comment's header (default github-actions)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Marked, type Tokens } from 'marked';

interface Options {
  input: string;
  output: string;
  width: number;
  maxHeight: number;
  scale: number;
  expand: number;
  author: string;
}

function usage(message: string): never {
  process.stderr.write(
    `render-comment: ${message}\nusage: npx tsx scripts/render-comment.ts <comment.md> <out.png> [--width N] [--max-height N] [--scale N] [--expand N] [--author NAME]\n`,
  );
  process.exit(2);
}

function parseArguments(argv: string[]): Options {
  const positional: string[] = [];
  const options = { width: 1000, maxHeight: 1400, scale: 1, expand: 0, author: 'github-actions' };
  const rest = [...argv];
  for (let argument = rest.shift(); argument !== undefined; argument = rest.shift()) {
    if (!argument.startsWith('--')) {
      positional.push(argument);
      continue;
    }
    const value = rest.shift();
    if (value === undefined) usage(`${argument} needs a value`);
    const number = (): number => {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) usage(`${argument} needs a number, got ${value}`);
      return n;
    };
    switch (argument) {
      case '--width':
        options.width = Math.round(number());
        break;
      case '--max-height':
        options.maxHeight = Math.round(number());
        break;
      case '--scale':
        options.scale = number();
        break;
      case '--expand':
        options.expand = Math.round(number());
        break;
      case '--author':
        options.author = value;
        break;
      default:
        usage(`unknown option ${argument}`);
    }
  }
  const [input, output] = positional;
  if (positional.length !== 2 || input === undefined || output === undefined)
    usage('expected a Markdown file and an output PNG path');
  return { input: resolve(input), output: resolve(output), ...options };
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// GitHub highlights ```diff blocks per line: file headers, hunk ranges, insertions, deletions.
function diffBlock(text: string): string {
  const lines = text.split('\n').map((line) => {
    const html = escapeHtml(line);
    if (line.startsWith('+++') || line.startsWith('---')) return `<span class="d-head">${html}</span>`;
    if (line.startsWith('@@')) return `<span class="d-range">${html}</span>`;
    if (line.startsWith('+')) return `<span class="d-add">${html}</span>`;
    if (line.startsWith('-')) return `<span class="d-del">${html}</span>`;
    return html;
  });
  return `<div class="highlight"><pre><code class="language-diff">${lines.join('\n')}</code></pre></div>\n`;
}

function markdownToHtml(markdown: string, expand = 0): string {
  const marked = new Marked({ gfm: true, breaks: false, async: false });
  marked.use({
    renderer: {
      code(token: Tokens.Code): string | false {
        if ((token.lang ?? '').trim().split(/\s+/)[0] === 'diff') return diffBlock(token.text);
        return false; // marked's own rendering
      },
    },
  });
  // HTML comments (the comment's marker) are invisible on GitHub; drop them.
  let html = marked.parse(markdown.replace(/<!--[\s\S]*?-->\n?/g, '')) as string;
  let left = expand;
  html = html.replace(/<details>/g, (tag) => (left-- > 0 ? '<details open>' : tag));
  return html;
}

const STYLE = `
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  html, body { margin: 0; background: #ffffff; }
  body {
    padding: 16px;
    font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, "Liberation Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji";
    font-size: 14px; line-height: 1.5; color: #1f2328;
  }
  .comment { border: 1px solid #d1d9e0; border-radius: 6px; overflow: hidden; }
  .comment-header {
    display: flex; align-items: center; gap: 8px; padding: 8px 16px;
    background: #f6f8fa; border-bottom: 1px solid #d1d9e0; color: #59636e;
  }
  .avatar {
    width: 20px; height: 20px; border-radius: 4px; background: #2f81f7;
    color: #fff; font-size: 11px; font-weight: 600; display: inline-flex; align-items: center; justify-content: center;
  }
  .comment-header strong { color: #1f2328; }
  .label { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 7px; font-size: 12px; font-weight: 500; line-height: 18px; }
  .markdown-body { padding: 16px; }
  .markdown-body > :first-child { margin-top: 0 !important; }
  .markdown-body > :last-child { margin-bottom: 0 !important; }
  a { color: #0969da; text-decoration: none; }
  a:hover { text-decoration: underline; }
  h1, h2, h3, h4 { margin: 24px 0 16px; font-weight: 600; line-height: 1.25; }
  h3 { font-size: 1.25em; }
  p, ul, ol, table, details, .highlight { margin: 0 0 16px; }
  ul, ol { padding-left: 2em; }
  li + li { margin-top: 0.25em; }
  code, pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace; font-size: 85%; }
  code { padding: 0.2em 0.4em; background: rgba(129, 139, 152, 0.12); border-radius: 6px; white-space: break-spaces; }
  pre { margin: 0; padding: 16px; overflow: auto; line-height: 1.45; background: #f6f8fa; border-radius: 6px; }
  pre code { padding: 0; background: transparent; border-radius: 0; font-size: 100%; white-space: pre; }
  table { border-spacing: 0; border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; }
  th { font-weight: 600; }
  th, td { padding: 6px 13px; border: 1px solid #d1d9e0; }
  tr { background: #ffffff; border-top: 1px solid #d1d9e0; }
  tr:nth-child(2n) { background: #f6f8fa; }
  details > summary { cursor: pointer; display: list-item; }
  details > :not(summary):first-of-type { margin-top: 16px; }
  details details { margin-left: 0; }
  details[open] > summary { margin-bottom: 0; }
  .d-head { color: #0550ae; font-weight: 600; }
  .d-range { color: #8250df; font-weight: 600; }
  .d-add { color: #116329; background: #dafbe1; }
  .d-del { color: #82071e; background: #ffebe9; }
  body.cut { overflow: hidden; }
  body.cut .comment { position: relative; }
  body.cut .fade {
    position: fixed; left: 0; right: 0; bottom: 0; height: 96px;
    background: linear-gradient(to bottom, rgba(255, 255, 255, 0), #ffffff 85%);
  }
`;

function page(body: string, author: string, cutAt: number | undefined): string {
  const initial = escapeHtml(author.slice(0, 1).toUpperCase());
  // The script records the page's full height for the measuring pass (--dump-dom).
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PR comment</title><style>${STYLE}</style></head>
<body${cutAt === undefined ? '' : ' class="cut"'}>
<div class="comment">
<div class="comment-header"><span class="avatar">${initial}</span><strong>${escapeHtml(author)}</strong><span class="label">bot</span><span>commented</span></div>
<div class="markdown-body">
${body}
</div>
</div>
${cutAt === undefined ? '' : '<div class="fade"></div>'}
<script>document.body.setAttribute('data-height', String(Math.ceil(document.documentElement.getBoundingClientRect().height)));</script>
</body></html>
`;
}

function chromium(): string {
  const candidates = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  const found = candidates.find((path): path is string => Boolean(path) && existsSync(path as string));
  if (!found) usage('no Chromium found: apt-get install -y chromium (or set $CHROMIUM)');
  return found;
}

function runChromium(
  profile: string,
  width: number,
  height: number,
  scale: number,
  extra: string[],
  url: string,
): string {
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--hide-scrollbars',
    `--user-data-dir=${profile}`,
    `--window-size=${width},${height}`,
    `--force-device-scale-factor=${scale}`,
    ...extra,
    url,
  ];
  return execFileSync(chromium(), args, {
    encoding: 'utf8',
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
}

function main(): void {
  const options = parseArguments(process.argv.slice(2));
  const markdown = readFileSync(options.input, 'utf8');
  const body = markdownToHtml(markdown, options.expand);
  const work = mkdtempSync(join(tmpdir(), 'render-comment-'));
  try {
    const html = join(work, 'comment.html');
    const url = pathToFileURL(html).href;
    // Pass 1: measure the page's height at the chosen width.
    writeFileSync(html, page(body, options.author, undefined));
    const dom = runChromium(join(work, 'profile-1'), options.width, 800, 1, ['--dump-dom'], url);
    const measured = Number(/data-height="(\d+)"/.exec(dom)?.[1]);
    if (!Number.isFinite(measured) || measured <= 0) throw new Error('could not measure the rendered page');
    const cut = measured > options.maxHeight;
    const height = cut ? options.maxHeight : measured;
    // Pass 2: the screenshot, as tall as the comment (or cut at --max-height).
    writeFileSync(html, page(body, options.author, cut ? height : undefined));
    runChromium(join(work, 'profile-2'), options.width, height, options.scale, [`--screenshot=${options.output}`], url);
    if (!existsSync(options.output)) throw new Error('Chromium wrote no screenshot');
    try {
      execFileSync(
        'pngquant',
        ['--force', '--skip-if-larger', '--quality=70-95', '--output', options.output, '--', options.output],
        { stdio: 'ignore' },
      );
    } catch {
      // pngquant missing, or it could not do better: keep Chromium's PNG.
    }
    process.stderr.write(
      `render-comment: ${options.output} (${options.width}x${height} CSS px${cut ? `, cut from ${measured}` : ''}, scale ${options.scale})\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
