// `mode: status`: the state of every selected cluster x instance (../fleet/fleet-state.ts,
// Banzai Pipeline's deployed / stale / not installed / failed / unknown), published as a job
// summary table, as the `status` output (the JSON `timoni-fleet status -o json` prints,
// secrets masked), and, with `status-issue: true`, as the body of one issue per bundle that
// each run updates in place (found by its hidden marker and by the token's account as
// author, `../github/issues.ts`). GitHub's REST API cannot pin an issue: pin it once by hand.
//
// What fails the step: an issue that was asked for and could not be written, and a cluster
// whose state could not be read (`unknown`; run-action.ts annotates each reason once). The
// states read do not: a status run that found a stale instance did its work, and says so in
// the summary and the output (a workflow that wants a red run for it tests the output).
import {
  INSTANCE_STATES,
  type FleetState,
  type InstanceState,
  type InstanceStateRow,
} from '../fleet/instance-state.js';
import { tokenIdentity } from '../github/comments.js';
import { upsertMarkedIssue, type IssueOutcome } from '../github/issues.js';
import { COMMENT_LIMIT, commentLength, STEP_SUMMARY_BUDGET, utf8Length, type Measure } from '../github/limits.js';
import {
  code,
  commitLink,
  escapeInline,
  runLink,
  tableHeader,
  tableRow,
  type ReportContext,
} from '../report/markdown.js';
import { showHiddenText } from '../report/index.js';
import { maskSecrets } from '../secrets.js';
import { runGitHubClient, type PublishTarget } from './publish.js';
import { appendStepSummary, setOutput } from './runner.js';

const STATE_LABELS: Record<InstanceState, string> = {
  deployed: '✅ deployed',
  stale: '🟠 stale',
  'not installed': '⚪ not installed',
  failed: '❌ failed',
  unknown: '❔ unknown',
  orphaned: '🚪 orphaned',
};

function shortDigest(digest: string): string {
  const match = /^([a-z0-9]+):([0-9a-f]{12})[0-9a-f]*$/.exec(digest);
  return match ? `${match[1]}:${match[2]}` : digest;
}

const dash = '–';

function rowCells(row: InstanceStateRow): string[] {
  const module = row.module ?? row.desired;
  // Names, versions and reasons come from the clusters and the user's files: what does not show is shown escaped.
  const cell = (text: string | undefined | null) => (text ? escapeInline(showHiddenText(text)) : dash);
  return [
    cell(row.cluster),
    cell(row.group),
    row.instance ? code(showHiddenText(row.instance)) : dash,
    cell(row.namespace),
    STATE_LABELS[row.state],
    cell(module?.version),
    module?.digest ? code(shortDigest(module.digest)) : dash,
    cell(row.lastApplied),
    row.readiness ? `${row.readiness.ready}/${row.readiness.total}` : dash,
    cell(row.reason),
  ];
}

/** `1 deployed · 2 stale · 0 not installed · 1 failed · 1 unknown`, the states present in bold. */
export function stateSummary(state: FleetState): string {
  return INSTANCE_STATES.map((name) =>
    state.counts[name] > 0 ? `**${state.counts[name]} ${name}**` : `${state.counts[name]} ${name}`,
  ).join(' · ');
}

const HEADINGS = [
  'Cluster',
  'Group',
  'Instance',
  'Namespace',
  'State',
  'Module',
  'Digest',
  'Last applied',
  'Ready',
  'Reason',
];

/**
 * The status as Markdown: a heading, the counts, the commit and run, and one table row per
 * cluster x instance. With `maxLength` (UTF-16 code units, as GitHub counts an issue body),
 * deployed rows are left out first, then the last rows, and a line says how many.
 */
export function renderStatusMarkdown(
  state: FleetState,
  context: ReportContext,
  options: { marker?: string; maxLength?: number; measure?: Measure } = {},
): string {
  const measure = options.measure ?? commentLength;
  const head =
    `${options.marker ? `${options.marker}\n` : ''}## timoni-fleet status: ${escapeInline(showHiddenText(state.bundle || '(bundle not evaluated)'))}\n\n` +
    `${stateSummary(state)}\n\nRead at ${commitLink(context)} by ${runLink(context, 'this run')}.\n\n`;
  const table = (rows: readonly InstanceStateRow[]) =>
    tableHeader(HEADINGS, ['l', 'l', 'l', 'l', 'l', 'l', 'l', 'l', 'r', 'l']) +
    rows.map((r) => tableRow(rowCells(r))).join('');
  const whole = maskSecrets(head + table(state.instances), context.secrets);
  const limit = options.maxLength;
  if (limit === undefined || measure(whole) <= limit) return whole;

  let rows = state.instances.filter((r) => r.state !== 'deployed');
  const omittedDeployed = state.instances.length - rows.length;
  const render = (shown: readonly InstanceStateRow[]) => {
    const cut = state.instances.length - shown.length;
    const note = `\n_${cut} of ${state.instances.length} rows left out (${omittedDeployed} deployed${cut > omittedDeployed ? `, ${cut - omittedDeployed} more` : ''}) to stay within GitHub's size limit; the \`status\` output of ${runLink(context, 'the run')} has them all._\n`;
    return maskSecrets(head + table(shown) + note, context.secrets);
  };
  let text = render(rows);
  while (measure(text) > limit && rows.length > 0) {
    rows = rows.slice(0, Math.max(0, Math.floor(rows.length * 0.8)));
    text = render(rows);
  }
  return text;
}

export interface StatusInput extends PublishTarget {
  state: FleetState;
  sha: string;
  /** Keep the table in one issue (`status-issue`). */
  issue: boolean;
}

export type StatusIssueReport = { kind: 'none'; reason: string } | IssueOutcome | { kind: 'failed'; message: string };

export interface StatusOutcome {
  issue: StatusIssueReport;
  /** The issue was asked for and could not be written: the step fails. */
  fails: boolean;
}

/** The hidden marker of a bundle's status issue. */
export function statusMarker(bundle: string, bundleFiles: readonly string[]): string {
  const name = bundle || bundleFiles.join(',');
  return `<!-- timoni-fleet-status: ${name.replace(/--/g, '- -').replace(/>/g, '')} -->`;
}

async function keepIssue(input: StatusInput, context: ReportContext): Promise<StatusIssueReport> {
  if (!input.issue) return { kind: 'none', reason: 'status-issue is false' };
  if (!input.githubToken) return { kind: 'none', reason: 'no github-token' };
  const client = runGitHubClient(input);
  const marker = statusMarker(input.state.bundle, input.bundleFiles);
  const body = renderStatusMarkdown(input.state, context, { marker, maxLength: COMMENT_LIMIT });
  const title = maskSecrets(
    `timoni-fleet status: ${input.state.bundle || input.bundleFiles.join(', ')}`,
    input.secrets,
  ).slice(0, 256);
  try {
    const author = await tokenIdentity(client, input.commentAuthor);
    return await upsertMarkedIssue(
      client,
      { owner: input.context.owner, repo: input.context.repo },
      marker,
      { title, body },
      author,
    );
  } catch (error) {
    return {
      kind: 'failed',
      message: maskSecrets(error instanceof Error ? error.message : String(error), input.secrets),
    };
  }
}

/** The `status` output, the job summary and, when asked, the status issue. */
export async function publishStatus(input: StatusInput): Promise<StatusOutcome> {
  // Every string masked on its own (a secret inside JSON text may be escaped there).
  const masked = JSON.parse(JSON.stringify(input.state), (_key, value: unknown) =>
    typeof value === 'string' ? maskSecrets(value, input.secrets) : value,
  ) as FleetState;
  setOutput(input.env, 'status', JSON.stringify(masked));
  const context: ReportContext = {
    commitSha: input.sha,
    runUrl: input.context.runUrl,
    repository: `${input.context.owner}/${input.context.repo}`,
    ...(input.env.GITHUB_SERVER_URL ? { serverUrl: input.env.GITHUB_SERVER_URL } : {}),
    secrets: input.secrets,
  };
  const issue = await keepIssue(input, context);
  let summary = renderStatusMarkdown(input.state, context, { maxLength: STEP_SUMMARY_BUDGET, measure: utf8Length });
  if (issue.kind === 'created' || issue.kind === 'updated')
    summary += `\nThe [status issue](${issue.url}) was ${issue.kind}.\n`;
  if (issue.kind === 'failed') summary += `\nThe status issue could not be written: ${escapeInline(issue.message)}\n`;
  appendStepSummary(input.env, summary);
  input.log.line(
    `timoni-fleet status of ${input.state.bundle}: ${INSTANCE_STATES.map((name) => `${input.state.counts[name]} ${name}`).join(', ')}`,
  );
  if (issue.kind === 'failed')
    input.log.annotate({ level: 'error', title: 'status issue not written', message: issue.message });
  else if (issue.kind !== 'none') input.log.line(`status issue ${issue.kind}: ${issue.url}`);
  return { issue, fails: issue.kind === 'failed' };
}
