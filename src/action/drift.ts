// `mode: drift`: the bundle as merged, diffed against every selected cluster (a schedule's
// job), reported in one issue per bundle that stays current. Drift found: the bundle's open
// issue is updated in place, or opened (`../github/issues.ts`: found by its hidden marker and
// by the token's account as author). Every cluster in sync: an open issue gets a comment
// saying so and is closed. The body is the PR comment's table and collapsible diffs
// (`renderPullRequestComment` with a frame of its own), masked as the PR comment is; its
// footer says how to reconcile: dispatch the workflow with `mode: apply` (Banzai Pipeline
// calls a drifted cluster STALE, and its "Reconcile" is that apply).
//
// What fails the step: a cluster that could not be diffed (run-action.ts), and an issue that could
// not be written (the issue was the point of the run; GitHub's answer is in the annotation).
// Drift itself does not: a schedule's job that found drift did its work, and reports it in
// the issue and the `drifted-clusters` output (a workflow that wants a red run tests it).
// While a cluster could not be diffed and none drifted, an open issue stays open: that
// cluster may still differ.
import { isLeaving, type ChangeSet } from '../changeset.js';
import { GitHubApiError } from '../github/api.js';
import { tokenIdentity } from '../github/comments.js';
import type { RunContext } from '../github/event.js';
import { closeIssueWithComment, findMarkedIssue, upsertMarkedIssue } from '../github/issues.js';
import { code, codeBlock, commitLink, escapeInline, runLink, type ReportContext } from '../report/markdown.js';
import { commentMarker, maskSecrets, renderPullRequestComment } from '../report/index.js';
import type { RunPlan } from './event-plan.js';
import { runGitHubClient, type PublishTarget } from './publish.js';
import { setOutput, type Environment } from './runner.js';

export type DriftPlan = Extract<RunPlan, { mode: 'drift' }>;

export interface DriftInput extends PublishTarget {
  /** The diff of every selected cluster (planFleet's ChangeSet). */
  changeSet: ChangeSet;
  plan: DriftPlan;
  /** Keep an issue (`drift-issue`); false: outputs and job summary only. */
  issue: boolean;
  /** Labels of a new issue (`drift-labels`). */
  labels: readonly string[];
  now?: () => Date;
}

/** What became of the bundle's drift issue. */
export type DriftIssueReport =
  | { kind: 'none'; reason: string }
  | { kind: 'created' | 'updated' | 'closed'; number: number; url: string }
  | { kind: 'failed'; message: string };

export interface DriftOutcome {
  drifted: string[];
  issue: DriftIssueReport;
  /** The issue could not be written: the step fails. */
  fails: boolean;
  /** For the job summary's notes. */
  note?: string;
}

/** Clusters whose live state differs from the bundle; and the clusters that hold the bundle though no runtime cluster names them (orphaned). */
export function driftedClusters(changeSet: ChangeSet): string[] {
  return changeSet.clusters
    .filter(
      (cluster) =>
        cluster.status === 'changed' ||
        (isLeaving(cluster) && cluster.bundleKept !== undefined && cluster.instances.length > 0),
    )
    .map((cluster) => cluster.name);
}

/** The drift issue's marker: the PR comment's, with `drift:` so that neither is taken for the other. */
export function driftMarker(bundle: string, bundleFiles: readonly string[] = []): string {
  return commentMarker(bundle, bundleFiles).replace('<!-- timoni-fleet:', '<!-- timoni-fleet:drift:');
}

/** How to run the reconcile: the workflow file and ref of this run (GITHUB_WORKFLOW_REF), its name. */
export interface ReconcileHint {
  repository: string;
  /** e.g. `drift.yml`; empty when unknown. */
  workflowFile: string;
  /** The branch the workflow runs on (`main`); empty when unknown. */
  ref: string;
  workflowName: string;
}

export function reconcileHint(env: Environment, context: RunContext): ReconcileHint {
  const workflowRef = env.GITHUB_WORKFLOW_REF ?? '';
  const at = workflowRef.lastIndexOf('@');
  const path = at >= 0 ? workflowRef.slice(0, at) : workflowRef;
  const ref = at >= 0 ? workflowRef.slice(at + 1) : context.ref;
  return {
    repository: `${context.owner}/${context.repo}`,
    workflowFile: path.split('/').pop() ?? '',
    ref: ref.replace(/^refs\/heads\//, ''),
    workflowName: env.GITHUB_WORKFLOW ?? '',
  };
}

/** An argument as the shell reads it: plain when safe, else single-quoted. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9._,/=:@+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export function issueTitle(bundle: string, secrets: readonly string[]): string {
  return maskSecrets(`Drift detected in bundle ${bundle || '(unnamed)'}`, secrets);
}

function renderHeadline(
  changeSet: ChangeSet,
  context: ReportContext,
  drifted: readonly string[],
  checkedAt: Date,
): string {
  const total = changeSet.clusters.length;
  const failed = changeSet.clusters.filter((cluster) => cluster.status === 'failed').length;
  const run = context.runUrl ? ` · ${runLink(context, 'workflow run')}` : '';
  const failures = failed > 0 ? ` **${failed} could not be checked** (their sections say why).` : '';
  return (
    `### Drift detected in bundle ${code(changeSet.bundle)}\n\n` +
    `The live state differs from the bundle on **${drifted.length} of ${total}** clusters (${drifted.map(code).join(', ')}) ` +
    `at commit ${commitLink(context)}${run}, checked ${escapeInline(checkedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'))}.${failures}\n\n` +
    '`-` is the live state, `+` the bundle.\n\n'
  );
}

function renderFooter(hint: ReconcileHint, drifted: readonly string[]): string {
  const workflow = hint.workflowFile || '<workflow file>';
  const command = [
    'gh',
    'workflow',
    'run',
    workflow,
    '--repo',
    hint.repository,
    ...(hint.ref ? ['--ref', hint.ref] : []),
    '-f',
    'mode=apply',
  ]
    .map(shellWord)
    .join(' ');
  const ui = hint.workflowName
    ? `**Actions** → ${code(hint.workflowName)} → **Run workflow**`
    : '**Actions** → this workflow → **Run workflow**';
  return (
    '---\n\n' +
    '**Reconcile**: apply the bundle again by dispatching this workflow with `mode: apply`:\n\n' +
    codeBlock(command, 'sh') +
    '\n' +
    `or only the drifted clusters: add ${code(`-f cluster=${drifted.join(',')}`)}. In GitHub: ${ui}, mode ${code('apply')}. ` +
    'To keep a live change instead, put it in the bundle through a pull request.\n\n' +
    '_This issue is updated by every drift check and closed when every cluster is in sync again._\n'
  );
}

/** The issue's title and body: the PR comment's table and diffs under a drift headline, with how to reconcile. */
export function renderDriftIssue(
  changeSet: ChangeSet,
  context: ReportContext,
  hint: ReconcileHint,
  checkedAt: Date,
): { title: string; body: string } {
  const drifted = driftedClusters(changeSet);
  const body = renderPullRequestComment(changeSet, context, {
    marker: driftMarker(changeSet.bundle, context.bundleFiles),
    headline: renderHeadline(changeSet, context, drifted, checkedAt),
    footer: renderFooter(hint, drifted),
  });
  return { title: issueTitle(changeSet.bundle, context.secrets), body };
}

export function renderInSyncComment(changeSet: ChangeSet, context: ReportContext, checkedAt: Date): string {
  const run = context.runUrl ? ` · ${runLink(context, 'workflow run')}` : '';
  const text =
    `✅ In sync again at commit ${commitLink(context)} (${escapeInline(checkedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'))})${run}: ` +
    `the live state of all ${changeSet.clusters.length} clusters matches bundle ${code(changeSet.bundle)}. Closing.\n`;
  return maskSecrets(text, context.secrets);
}

function failureMessage(error: unknown, secrets: readonly string[]): string {
  if (error instanceof GitHubApiError && error.status === 403 && !/rate limit/i.test(error.apiMessage)) {
    return maskSecrets(
      `${error.message}; the token may not write issues: give the job \`permissions: issues: write\``,
      secrets,
    );
  }
  if (error instanceof GitHubApiError && error.status === 410)
    return maskSecrets(
      `${error.message}; turn issues on in the repository's settings, or set drift-issue: false`,
      secrets,
    );
  return maskSecrets(error instanceof Error ? error.message : String(error), secrets);
}

async function keepIssue(
  input: DriftInput,
  reportContext: ReportContext,
  drifted: readonly string[],
): Promise<DriftIssueReport> {
  if (!input.issue) return { kind: 'none', reason: 'drift-issue is false' };
  if (!input.githubToken) return { kind: 'none', reason: 'no github-token' };
  const failed = input.changeSet.clusters.some((cluster) => cluster.status === 'failed');
  if (drifted.length === 0 && failed)
    return {
      kind: 'none',
      reason: 'no drift found, but a cluster could not be checked: an open drift issue stays open',
    };
  const client = runGitHubClient(input);
  const target = { owner: input.context.owner, repo: input.context.repo };
  const marker = driftMarker(input.changeSet.bundle, input.bundleFiles);
  const checkedAt = (input.now ?? (() => new Date()))();
  try {
    const author = await tokenIdentity(client, input.commentAuthor);
    if (drifted.length > 0) {
      const { title, body } = renderDriftIssue(
        input.changeSet,
        reportContext,
        reconcileHint(input.env, input.context),
        checkedAt,
      );
      const outcome = await upsertMarkedIssue(client, target, marker, { title, body, labels: input.labels }, author);
      return outcome;
    }
    const open = await findMarkedIssue(client, target, marker, author);
    if (!open) return { kind: 'none', reason: 'every cluster in sync and no drift issue open' };
    const closed = await closeIssueWithComment(
      client,
      target,
      open.number,
      renderInSyncComment(input.changeSet, reportContext, checkedAt),
    );
    return { kind: 'closed', number: closed.number, url: closed.html_url };
  } catch (error) {
    return { kind: 'failed', message: failureMessage(error, input.secrets) };
  }
}

/** The drift issue created, updated or closed, the `drifted-clusters` output set; says what happened in the log. */
export async function publishDrift(input: DriftInput): Promise<DriftOutcome> {
  const drifted = driftedClusters(input.changeSet);
  setOutput(input.env, 'drifted-clusters', drifted.join(','));
  const reportContext: ReportContext = {
    commitSha: input.plan.sha,
    runUrl: input.context.runUrl,
    repository: `${input.context.owner}/${input.context.repo}`,
    ...(input.env.GITHUB_SERVER_URL ? { serverUrl: input.env.GITHUB_SERVER_URL } : {}),
    secrets: input.secrets,
    bundleFiles: input.bundleFiles,
  };
  input.log.line(
    drifted.length > 0
      ? `drift: ${drifted.length} of ${input.changeSet.clusters.length} clusters differ from the bundle: ${drifted.join(', ')}`
      : `drift: none on ${input.changeSet.clusters.length} clusters`,
  );
  const issue = await keepIssue(input, reportContext, drifted);
  switch (issue.kind) {
    case 'none':
      input.log.line(`drift issue: nothing written (${issue.reason})`);
      if (drifted.length > 0)
        input.log.annotate({
          level: 'warning',
          title: 'drift found',
          message: `${drifted.join(', ')} differ from the bundle; no issue written (${issue.reason})`,
        });
      return { drifted, issue, fails: false };
    case 'created':
    case 'updated':
      input.log.line(`drift issue ${issue.kind}: ${issue.url}`);
      return { drifted, issue, fails: false, note: `Drift issue #${issue.number} ${issue.kind}: ${issue.url}` };
    case 'closed':
      input.log.line(`drift issue closed, every cluster in sync again: ${issue.url}`);
      return {
        drifted,
        issue,
        fails: false,
        note: `Drift issue #${issue.number} closed: every cluster is in sync again.`,
      };
    case 'failed':
      input.log.annotate({
        level: 'error',
        title: 'drift issue not written',
        message: `The drift issue of bundle ${input.changeSet.bundle || '(unnamed)'} could not be written: ${issue.message}`,
      });
      return { drifted, issue, fails: true, note: `The drift issue could not be written: ${issue.message}.` };
  }
}
