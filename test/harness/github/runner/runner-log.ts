// Turns what an action printed (lines from stdout and stderr, in arrival order) into
// what the runner makes of it: the log as the runner shows it (commands rendered as
// `##[error]...`, `##[group]...`, add-mask lines hidden, debug lines only when step
// debugging is on, masked values replaced by `***`), the parsed commands, and the
// problems that fail the step.
import { SecretMasker } from './secret-masker.js';
import { REGISTERED_COMMANDS, type WorkflowCommand, parseWorkflowCommand } from './workflow-commands.js';

export interface PrintedLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface ProcessedLog {
  log: string;
  commands: WorkflowCommand[];
  /** Values registered with ::add-mask:: (in order). */
  masked: string[];
  /** Outputs and state set through the deprecated ::set-output:: / ::save-state:: commands. */
  commandOutputs: Record<string, string>;
  commandState: Record<string, string>;
  /** Commands the runner refuses (set-env, add-path): each fails the step. */
  errors: string[];
}

const DEPRECATED = (name: string): string =>
  `The \`${name}\` command is deprecated and will be disabled soon. Please upgrade to using Environment Files. ` +
  'For more information see: https://github.blog/changelog/2022-10-11-github-actions-deprecating-save-state-and-set-output-commands/';

const DISABLED = (name: string): string =>
  `The \`${name}\` command is disabled. Please upgrade to using Environment Files or opt into unsecure command execution ` +
  'by setting the `ACTIONS_ALLOW_UNSECURE_COMMANDS` environment variable to `true`. ' +
  'For more information see: https://github.blog/changelog/2020-10-01-github-actions-deprecating-set-env-and-add-path-commands/';

export function processLog(
  lines: readonly PrintedLine[],
  options: { debug: boolean; secrets: readonly string[] },
): ProcessedLog {
  const masker = new SecretMasker();
  for (const secret of options.secrets) masker.add(secret);
  const shown: string[] = [];
  const commands: WorkflowCommand[] = [];
  const masked: string[] = [];
  const commandOutputs: Record<string, string> = {};
  const commandState: Record<string, string> = {};
  const errors: string[] = [];
  let resumeToken: string | undefined;

  // Masks apply to what is shown from the moment they are registered; lines are
  // therefore masked as they are produced, not at the end.
  const show = (text: string): void => {
    shown.push(masker.mask(text));
  };

  for (const line of lines) {
    if (resumeToken !== undefined) {
      // As the runner: the line is parsed with every registered name and the token; only the
      // token (ignoring case) resumes, any other command is printed as text.
      const parsed = parseWorkflowCommand(line.text, line.stream, new Set([...REGISTERED_COMMANDS, resumeToken]));
      if (parsed && parsed.command === resumeToken.toLowerCase()) {
        resumeToken = undefined;
        continue;
      }
      show(line.text);
      continue;
    }
    const command = parseWorkflowCommand(line.text, line.stream, REGISTERED_COMMANDS);
    if (!command) {
      show(line.text);
      continue;
    }
    commands.push(command);
    switch (command.command) {
      case 'add-mask':
        masker.add(command.message);
        if (command.message.trim() !== '') masked.push(command.message);
        break;
      case 'error':
      case 'warning':
      case 'notice':
        show(`##[${command.command}]${command.message}`);
        break;
      case 'debug':
        if (options.debug) show(`##[debug]${command.message}`);
        break;
      case 'group':
        show(`##[group]${command.message}`);
        break;
      case 'endgroup':
        show('##[endgroup]');
        break;
      case 'set-output':
      case 'save-state': {
        const name = command.properties.name ?? '';
        show(`##[warning]${DEPRECATED(command.command)}`);
        if (name === '') {
          errors.push(`::${command.command}:: without a name`);
          show(`##[error]Unable to process command '${command.raw}' successfully.`);
        } else if (command.command === 'set-output') {
          commandOutputs[name] = command.message;
        } else {
          commandState[name] = command.message;
        }
        break;
      }
      case 'set-env':
      case 'add-path':
        errors.push(DISABLED(command.command));
        show(`##[error]Unable to process command '${command.raw}' successfully.`);
        show(`##[error]${DISABLED(command.command)}`);
        break;
      case 'stop-commands':
        if (command.message === '') {
          errors.push('::stop-commands:: needs a token');
          show(`##[error]Unable to process command '${command.raw}' successfully.`);
        } else {
          resumeToken = command.message;
        }
        break;
      default:
        // echo, add-matcher, remove-matcher: accepted, nothing shown.
        break;
    }
  }
  return { log: shown.join('\n'), commands, masked, commandOutputs, commandState, errors };
}
