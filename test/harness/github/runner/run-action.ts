// Runs a JavaScript action the way the GitHub Actions runner runs a `node24` action:
// `node <runs.main>` with Node 24, cwd = the workspace, a clean environment with the
// job's GITHUB_* and RUNNER_* variables, INPUT_* for every input of action.yml (given
// or defaulted, expressions in defaults evaluated), the event payload in a file, and
// fresh GITHUB_OUTPUT / GITHUB_STEP_SUMMARY / GITHUB_ENV / GITHUB_PATH / GITHUB_STATE
// files, read back after the process ends. `whileRunning` acts on the process as it runs
// (waits for a line of its log, sends it a signal, as the runner does to cancel a step).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { readActionMetadata } from './action-metadata.js';
import { baseEnvironment, runnerEnvironment, type RunnerFiles } from './environment.js';
import type { Contexts, ContextValue } from './expressions.js';
import { FileCommandError, parseKeyValueFile, parsePathFile } from './file-commands.js';
import { type GitHubContextOverrides, type GitHubEvent, githubContext } from './github-context.js';
import { inputEnvironment } from './input-environment.js';
import { LineSplitter } from './line-splitter.js';
import { REPO_ROOT, nodeFor } from './node-runtime.js';
import { type PrintedLine, processLog } from './runner-log.js';
import type { WorkflowCommand } from './workflow-commands.js';

export interface RunActionOptions {
  event: GitHubEvent;
  /** Base URL of the GitHub API (the stand-in's url). */
  githubApiUrl: string;
  /** Inputs as a workflow's `with:` gives them (names as in action.yml). */
  inputs?: Record<string, string>;
  /** The workflow's GITHUB_TOKEN: the value of ${{ github.token }}, masked in the log. */
  token?: string;
  /**
   * Script to run instead of action.yml's runs.main (e.g. a test's own entry). Default: the
   * TIMONI_FLEET_ACTION_ENTRY variable when set (a bundle built into a temporary folder with
   * `node scripts/build.mjs --out DIR`, to run the end-to-end tests without rebuilding dist/),
   * else runs.main.
   */
  entry?: string;
  /** action.yml to read inputs and runs.using from (default: the repository's). */
  actionYmlPath?: string;
  /** The workspace (cwd, GITHUB_WORKSPACE); a fresh temporary directory by default. */
  workdir?: string;
  /** Extra variables for the process (a step's `env:`), applied last. */
  env?: Record<string, string>;
  /** Names of the caller's variables to pass through besides PATH, HOME and the locale. */
  inheritEnv?: string[];
  /** Overrides of the github context (sha, ref, repository, run ids, ...). */
  github?: GitHubContextOverrides;
  /** Other job secrets: the runner masks them in the log. */
  secrets?: string[];
  /** Step debug logging (RUNNER_DEBUG=1; ::debug:: lines shown). */
  debug?: boolean;
  /** Kill the process after this long (default 110 s, inside vitest's 120 s test timeout). */
  timeoutMs?: number;
  /** Keep the temporary runner files (event, GITHUB_OUTPUT, ...) after the run. */
  keepTemp?: boolean;
  /**
   * Called once the process has started, to act on it while it runs (e.g. wait for a line,
   * then send SIGINT as the runner does when a run is cancelled). Its failure fails runAction
   * once the process has ended.
   */
  whileRunning?: (running: RunningAction) => Promise<void>;
}

/** The action's process while it runs. */
export interface RunningAction {
  /** Resolves with the first printed line (either stream) matching `pattern`; rejects after `timeoutMs` (default 60 s) or if the process ends first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<PrintedLine>;
  /** Sends `signal` to the process; answers when it was sent (epoch ms). */
  signal(name: NodeJS.Signals): number;
  /** Resolves when the process has ended, with when (epoch ms). */
  readonly ended: Promise<number>;
}

export interface ActionRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** failure when the process exited non-zero or timed out, or a command or file command failed. */
  conclusion: 'success' | 'failure';
  stdout: string;
  stderr: string;
  /** Every printed line, both streams, in arrival order, as printed. */
  lines: PrintedLine[];
  /** The log as the runner shows it: commands rendered (##[error]...), add-mask hidden, masks applied. */
  log: string;
  /** Outputs from GITHUB_OUTPUT (and the deprecated ::set-output::). */
  outputs: Record<string, string>;
  /** GITHUB_STEP_SUMMARY as written (unmasked). */
  summary: string;
  /** The runner refuses to upload a summary over 1 MiB. */
  summaryTooLarge: boolean;
  /** GITHUB_ENV, GITHUB_PATH and GITHUB_STATE (with ::save-state::). */
  exportedEnv: Record<string, string>;
  addedPath: string[];
  state: Record<string, string>;
  /** Workflow commands in the order printed, messages and properties unescaped. */
  commands: WorkflowCommand[];
  /** Values registered with ::add-mask::. */
  masked: string[];
  /** Why the runner would fail the step beyond the exit code (bad file commands, disabled commands). */
  runnerErrors: string[];
  /** The environment the process was started with. */
  childEnv: Record<string, string>;
  workdir: string;
}

const SUMMARY_LIMIT = 1024 * 1024;

async function prepareFiles(root: string): Promise<RunnerFiles> {
  const commands = join(root, '_runner_file_commands');
  const files: RunnerFiles = {
    eventPath: join(root, '_github_workflow', 'event.json'),
    output: join(commands, 'set_output_1'),
    summary: join(commands, 'step_summary_1'),
    env: join(commands, 'set_env_1'),
    path: join(commands, 'add_path_1'),
    state: join(commands, 'save_state_1'),
    runnerTemp: join(root, '_temp'),
    toolCache: join(root, '_tool'),
  };
  for (const dir of [commands, dirname(files.eventPath), files.runnerTemp, files.toolCache])
    await mkdir(dir, { recursive: true });
  for (const file of [files.output, files.summary, files.env, files.path, files.state]) await writeFile(file, '');
  return files;
}

async function readOptional(path: string): Promise<string> {
  return existsSync(path) ? readFile(path, 'utf8') : '';
}

export async function runAction(options: RunActionOptions): Promise<ActionRun> {
  const metadata = readActionMetadata(options.actionYmlPath ?? join(REPO_ROOT, 'action.yml'));
  const node = nodeFor(metadata.using);
  const entry = resolve(options.entry ?? (process.env.TIMONI_FLEET_ACTION_ENTRY || metadata.main));
  if (!existsSync(entry))
    throw new Error(`runAction: entry ${entry} does not exist (build dist/ first, or pass entry)`);

  const root = await mkdtemp(join(tmpdir(), 'timoni-fleet-runner-'));
  try {
    const workdir = options.workdir ? resolve(options.workdir) : join(root, 'work', 'repo', 'repo');
    await mkdir(workdir, { recursive: true });
    const files = await prepareFiles(root);
    await writeFile(files.eventPath, JSON.stringify(options.event.payload, null, 2));

    const token = options.token ?? '';
    const github = githubContext(options.event, {
      apiUrl: options.githubApiUrl,
      workspace: workdir,
      token,
      overrides: options.github ?? {},
    });
    const envContext: Record<string, ContextValue> = { ...(options.env ?? {}) };
    const contexts: Contexts = {
      github: github as unknown as ContextValue,
      runner: { os: 'Linux', temp: files.runnerTemp, tool_cache: files.toolCache, debug: options.debug ? '1' : '' },
      env: envContext,
    };
    const inputs = inputEnvironment(metadata, options.inputs ?? {}, contexts);
    const childEnv: Record<string, string> = {
      ...baseEnvironment(process.env, options.inheritEnv ?? []),
      ...runnerEnvironment(github, files, { debug: options.debug ?? false, workspaceParent: dirname(workdir) }),
      ...inputs.env,
      ...(options.env ?? {}),
    };

    const lines: PrintedLine[] = [];
    const stdoutChunks: Buffer[] = [];
    const stderrChunks: Buffer[] = [];
    const child = spawn(node, [entry], { cwd: workdir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = new LineSplitter('stdout', lines);
    const err = new LineSplitter('stderr', lines);
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutChunks.push(chunk);
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderrChunks.push(chunk);
      err.push(chunk);
    });
    let exited = false;
    const ended = new Promise<number>((resolveEnded) =>
      child.once('close', () => {
        exited = true;
        resolveEnded(Date.now());
      }),
    );
    const running: RunningAction = {
      ended,
      signal: (name) => {
        child.kill(name);
        return Date.now();
      },
      waitForLine: async (pattern, waitMs = 60_000) => {
        const until = Date.now() + waitMs;
        for (;;) {
          const found = lines.find((line) => pattern.test(line.text));
          if (found) return found;
          if (exited)
            throw new Error(`runAction: the process ended before printing a line matching ${String(pattern)}`);
          if (Date.now() > until) throw new Error(`runAction: no line matching ${String(pattern)} within ${waitMs} ms`);
          await new Promise((resolveSleep) => setTimeout(resolveSleep, 50));
        }
      },
    };
    const acting = options.whileRunning
      ? options.whileRunning(running).then(
          () => undefined,
          (error: unknown) => error,
        )
      : Promise.resolve(undefined);
    let timedOut = false;
    const timeoutMs = options.timeoutMs ?? 110_000;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const { exitCode, signal } = await new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>(
      (resolveExit, reject) => {
        child.once('error', (error) => reject(new Error(`runAction: starting ${node} ${entry}: ${error.message}`)));
        child.once('close', (code, sig) => resolveExit({ exitCode: code, signal: sig }));
      },
    );
    clearTimeout(timer);
    out.end();
    err.end();
    const actingError = await acting;
    if (actingError) throw actingError instanceof Error ? actingError : new Error(String(actingError));

    const secrets = [...(token ? [token] : []), ...(options.secrets ?? [])];
    const processed = processLog(lines, { debug: options.debug ?? false, secrets });
    const runnerErrors = [...processed.errors];
    const shownErrors: string[] = [];
    const readKeyValue = async (path: string, name: string): Promise<Record<string, string>> => {
      try {
        return parseKeyValueFile(await readOptional(path), name);
      } catch (error) {
        if (!(error instanceof FileCommandError)) throw error;
        runnerErrors.push(error.message);
        shownErrors.push(
          `##[error]Unable to process file command '${name}' successfully.`,
          `##[error]${error.message}`,
        );
        return {};
      }
    };
    const outputs = { ...processed.commandOutputs, ...(await readKeyValue(files.output, 'output')) };
    const exportedEnv = await readKeyValue(files.env, 'env');
    const state = { ...processed.commandState, ...(await readKeyValue(files.state, 'state')) };
    const addedPath = parsePathFile(await readOptional(files.path));
    const summary = await readOptional(files.summary);
    const summaryTooLarge = Buffer.byteLength(summary) > SUMMARY_LIMIT;

    if (timedOut) shownErrors.unshift(`##[error]The action has timed out after ${timeoutMs} ms.`);
    const log = [
      ...inputs.warnings.map((w) => `##[warning]${w}`),
      ...(processed.log === '' && lines.length === 0 ? [] : [processed.log]),
      ...shownErrors,
    ].join('\n');
    const failed = timedOut || exitCode !== 0 || runnerErrors.length > 0;
    return {
      exitCode,
      signal,
      timedOut,
      conclusion: failed ? 'failure' : 'success',
      stdout: Buffer.concat(stdoutChunks).toString('utf8'),
      stderr: Buffer.concat(stderrChunks).toString('utf8'),
      lines,
      log,
      outputs,
      summary,
      summaryTooLarge,
      exportedEnv,
      addedPath,
      state,
      commands: processed.commands,
      masked: processed.masked,
      runnerErrors,
      childEnv,
      workdir,
    };
  } finally {
    if (!options.keepTemp) await rm(root, { recursive: true, force: true });
  }
}
