// End to end, as a pull request's author would try it: text from a module reaches a log line
// (an object name that fails validation is named in the build error), and holds a line
// break, then U+0085 (NEL, whitespace to the runner's .NET TrimStart, not to JavaScript's
// `\s`) and `::stop-commands::`, plus an ANSI sequence. The action runs as the runner runs it
// (`node dist/index.js`), and every line it prints is parsed by the runner's own rule
// (test/harness/github/runner/workflow-commands.ts): no command may come of it, the error
// that follows must still be an annotation, and the escape sequence must be shown, not sent.
// The CLI (`node dist/cli/index.js`) prints the same error on stderr by the same rule.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { REPO_ROOT } from '../harness/github/runner/node-runtime.js';
import { parseWorkflowCommand } from '../harness/github/runner/workflow-commands.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('logesc');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
});

/** Commands the action itself prints; anything else on a line is text that became a command. */
const OWN_COMMANDS = new Set(['add-mask', 'group', 'endgroup', 'error', 'warning', 'notice', 'debug']);
const TOKEN = 'zq7-logesc-token';
/** The object name: a line break, NEL, a stop-commands with its token, and red text. */
const NAME = `cm\n\u0085::stop-commands::${TOKEN}\u001b[31m`;
const QUOTED = '"cm\\n\\u0085::stop-commands::zq7-logesc-token\\u001b[31m"';

/** A copy of the example module whose ConfigMap is named by `values.message`, as a pull request could commit it. */
function injectingModule(name: string): void {
  const dir = join(stage.workdir, name);
  cpSync(join(REPO_ROOT, 'examples', 'modules', 'webapp'), dir, { recursive: true });
  const objects = join(dir, 'templates', 'objects.cue');
  const original = readFileSync(objects, 'utf8');
  const patched = original.replace(
    /(kind:\s+"ConfigMap"\n\tlet C = #config\n\t)metadata: #Meta & \{#config: C\}/,
    '$1metadata: {name: C.message, namespace: C.metadata.namespace}',
  );
  if (patched === original) throw new Error('the example module changed: its ConfigMap metadata was not found');
  writeFileSync(objects, patched);
}

function injectingBundle(name: string): string {
  injectingModule(`mod-${name}`);
  const file = `${name}.cue`;
  mkdirSync(stage.workdir, { recursive: true });
  writeFileSync(
    join(stage.workdir, file),
    `bundle: {
	apiVersion: "v1alpha1"
	name: "${name}"
	instances: web: {
		module: url: "file://./mod-${name}"
		namespace: "logesc"
		values: message: ${JSON.stringify(NAME).replace(/\u0085/g, '\\u0085')}
	}
}
`,
  );
  return file;
}

function run(event: Parameters<typeof runAction>[0]['event'], inputs: Record<string, string>): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

function runCli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'index.js'), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('workflow commands and ANSI sequences from an object name', () => {
  it('prints the name as text the runner reads no command in, and the error still becomes an annotation', async () => {
    const bundle = injectingBundle('logesc-nel');
    const pr = stage.openPullRequest(700);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle },
    );
    expect(result.exitCode, result.log).toBe(1);

    // By the runner's rule, on every line printed: only the action's own commands.
    expect(result.commands.map((c) => c.command)).not.toContain('stop-commands');
    for (const line of result.lines) {
      const command = parseWorkflowCommand(line.text, line.stream);
      if (command) expect(OWN_COMMANDS.has(command.command), JSON.stringify(line.text)).toBe(true);
    }
    // Commands were never stopped: the build error that follows the log line is an annotation.
    const errors = result.commands.filter((c) => c.command === 'error').map((c) => c.message);
    expect(errors.join('\n')).toContain(`metadata.name ${QUOTED} must match regex`);
    expect(result.runnerErrors).toEqual([]);

    // No ESC, CSI, NEL or separator reaches the log raw; the sequence is shown escaped.
    // eslint-disable-next-line no-control-regex -- control characters are what is looked for
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/[\u001b\u009b\u0085\u2028\u2029]/);
    expect(result.log).toContain('\\u001b[31m');
    expect(result.log).not.toContain(TOKEN + '\u001b');
  });

  it('shows the same name escaped on the CLI: stderr holds no ANSI sequence and no line the runner would run', async () => {
    const bundle = injectingBundle('logesc-cli');
    const result = await runCli(['build', '-f', bundle], stage.workdir);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`metadata.name ${QUOTED} must match regex`);
    // eslint-disable-next-line no-control-regex -- control characters are what is looked for
    expect(result.stderr).not.toMatch(/[\u001b\u009b\u0085]/);
    for (const text of result.stderr.split(/\r\n|\n|\r/))
      expect(parseWorkflowCommand(text, 'stderr'), JSON.stringify(text)).toBeUndefined();
  });
});
