// The stand-in's state: seeded repositories, issues and pull requests, the comments
// created through the API (in creation order), and every request received.
import type { CommentRecord, IssueRecord, PullRequestRecord, RepositoryRecord, RequestRecord } from './records.js';
import type { ForcedSecondaryLimit } from './rate-limit.js';
import { fakeSha } from '../events/payload-objects.js';
import { type Account, GITHUB_ACTIONS_BOT } from './users.js';

export interface RepositorySeed {
  owner: string;
  name: string;
  id?: number;
  defaultBranch?: string;
  private?: boolean;
  ownerType?: 'User' | 'Organization';
  /** false: issues are turned off (the issue routes answer 410 Gone). */
  hasIssues?: boolean;
}

export interface PullRequestSeed {
  owner: string;
  repo: string;
  number: number;
  headSha: string;
  headRef?: string;
  baseRef?: string;
  baseSha?: string;
  /** owner/name of the head repository, for a pull request from a fork. */
  headRepoFullName?: string;
  title?: string;
  body?: string | null;
  user?: Account;
  draft?: boolean;
  /** closed (and merged when `merged`); open by default. */
  state?: 'open' | 'closed';
  merged?: boolean;
  mergeCommitSha?: string | null;
}

export interface CommentSeed {
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
  user?: Account;
}

/** An error answer forced on the next matching requests (a 502 from GitHub's front end, say). */
export interface ForcedError {
  status: number;
  message: string;
  /** Only requests of this method (any when left out). */
  method?: string;
  /** Only requests whose path (without query) matches. */
  path?: RegExp;
  times: number;
  /** Answer with an HTML page instead of GitHub's JSON error body. */
  html?: boolean;
  /** Never answer (the connection stays open until the client closes it). */
  hang?: boolean;
}

export interface IssueSeed {
  owner: string;
  repo: string;
  number: number;
  title?: string;
  body?: string | null;
  /** The author (default: octocat, a person). */
  user?: Account;
  state?: 'open' | 'closed';
  labels?: string[];
}

/** An issue created through the API (POST /repos/{o}/{r}/issues). */
export interface NewIssue {
  title: string;
  body: string | null;
  labels: string[];
  user: Account;
}

/** The fields PATCH /repos/{o}/{r}/issues/{n} may change. */
export interface IssueChanges {
  title?: string;
  body?: string | null;
  state?: 'open' | 'closed';
  stateReason?: 'completed' | 'not_planned' | 'reopened' | null;
  labels?: string[];
}

const OCTOCAT: Account = { login: 'octocat', id: 583231, type: 'User' };

const key = (owner: string, name: string): string => `${owner}/${name}`.toLowerCase();

export class GitHubState {
  private readonly repositories = new Map<string, RepositoryRecord>();
  private readonly issues = new Map<number, Map<number, IssueRecord>>();
  private readonly commentsById = new Map<number, CommentRecord>();
  private nextRepositoryId = 700_000_001;
  private nextCommentId = 2_400_000_001;
  private nextPullRequestId = 1_900_000_001;
  private nextIssueId = 3_100_000_001;
  private nextRequest = 1;
  private secondary: ForcedSecondaryLimit | undefined;
  private readonly forcedErrors: ForcedError[] = [];
  /** `${repositoryId}@${ref}` -> repository path -> content (putFiles). */
  private readonly trees = new Map<string, Map<string, Buffer>>();
  /** Every request received, in order. */
  readonly requests: RequestRecord[] = [];

  constructor(private readonly clock: () => Date = () => new Date()) {}

  /** An ISO 8601 timestamp without milliseconds, as GitHub writes them. */
  timestamp(): string {
    return this.clock()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  addRepository(seed: RepositorySeed): RepositoryRecord {
    const k = key(seed.owner, seed.name);
    if (this.repositories.has(k)) throw new Error(`stand-in: repository ${seed.owner}/${seed.name} is already seeded`);
    const id = seed.id ?? this.nextRepositoryId++;
    const record: RepositoryRecord = {
      id,
      owner: { login: seed.owner, id: 1000 + this.repositories.size, type: seed.ownerType ?? 'Organization' },
      name: seed.name,
      defaultBranch: seed.defaultBranch ?? 'main',
      private: seed.private ?? false,
      ...(seed.hasIssues === false ? { hasIssues: false } : {}),
      // The default branch's tip as the event builders name it (pullRequestEvent's default
      // base.sha): a commit GitHub knows, without files unless a test puts some there.
      commits: new Set([fakeSha(`${seed.owner}/${seed.name}@${seed.defaultBranch ?? 'main'}`)]),
    };
    this.repositories.set(k, record);
    this.issues.set(id, new Map());
    return record;
  }

  repository(owner: string, name: string): RepositoryRecord | undefined {
    return this.repositories.get(key(owner, name));
  }

  repositoryById(id: number): RepositoryRecord | undefined {
    for (const record of this.repositories.values()) if (record.id === id) return record;
    return undefined;
  }

  private seededRepository(owner: string, name: string): RepositoryRecord {
    const record = this.repository(owner, name);
    if (!record) throw new Error(`stand-in: repository ${owner}/${name} is not seeded; call state.addRepository first`);
    return record;
  }

  private issueMap(repository: RepositoryRecord): Map<number, IssueRecord> {
    const map = this.issues.get(repository.id);
    if (!map) throw new Error(`stand-in: no issue table for repository ${repository.owner.login}/${repository.name}`);
    return map;
  }

  addCommit(owner: string, repo: string, sha: string): void {
    this.seededRepository(owner, repo).commits.add(sha);
  }

  /**
   * Puts files at a commit (or branch) of the repository, as the contents endpoint then
   * serves them: `files` maps repository paths (`deploy/runtime.cue`, no leading slash) to
   * their content; a later call for the same ref adds to the files there. A 40-hex ref is
   * also a known commit (`commits/{sha}/pulls`). A ref without files is known with
   * `addCommit`: every path at it answers 404.
   */
  putFiles(owner: string, repo: string, ref: string, files: Readonly<Record<string, string | Buffer>>): void {
    const repository = this.seededRepository(owner, repo);
    if (/^[0-9a-f]{40}$/.test(ref)) repository.commits.add(ref);
    const key = `${repository.id}@${ref}`;
    const tree = this.trees.get(key) ?? new Map<string, Buffer>();
    for (const [path, content] of Object.entries(files)) {
      if (path.startsWith('/') || path.split('/').some((part) => part === '' || part === '.' || part === '..'))
        throw new Error(`stand-in: ${JSON.stringify(path)} is not a repository path`);
      tree.set(path, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    }
    this.trees.set(key, tree);
  }

  /** The files at a ref (branch names and seeded commits), or undefined for a ref the repository does not know. */
  filesAt(repository: RepositoryRecord, ref: string): ReadonlyMap<string, Buffer> | undefined {
    const tree = this.trees.get(`${repository.id}@${ref}`);
    if (tree) return tree;
    return repository.commits.has(ref) ? new Map() : undefined;
  }

  /**
   * Merges an open pull request as GitHub does: closed, merged, `merge_commit_sha` the commit
   * that landed on the base branch (a merge commit, or for a squash or rebase merge the new
   * commit, never the head), which `commits/{sha}/pulls` then answers with this pull request.
   */
  mergePullRequest(owner: string, repo: string, number: number, mergeCommitSha: string): PullRequestRecord {
    const repository = this.seededRepository(owner, repo);
    const pr = this.issue(repository, number)?.pullRequest;
    if (!pr) throw new Error(`stand-in: ${owner}/${repo}#${number} is not a seeded pull request`);
    if (pr.merged || pr.state !== 'open')
      throw new Error(`stand-in: pull request #${number} is not open (GitHub answers 405 to a merge)`);
    const now = this.timestamp();
    Object.assign(pr, { merged: true, state: 'closed', mergeCommitSha, mergedAt: now, closedAt: now, updatedAt: now });
    repository.commits.add(mergeCommitSha);
    return pr;
  }

  addIssue(seed: IssueSeed): IssueRecord {
    const repository = this.seededRepository(seed.owner, seed.repo);
    const map = this.issueMap(repository);
    if (map.has(seed.number)) throw new Error(`stand-in: ${seed.owner}/${seed.repo}#${seed.number} is already seeded`);
    const now = this.timestamp();
    const state = seed.state ?? 'open';
    const issue: IssueRecord = {
      number: seed.number,
      title: seed.title ?? `Issue ${seed.number}`,
      pullRequest: undefined,
      id: this.nextIssueId++,
      body: seed.body ?? null,
      user: seed.user ?? OCTOCAT,
      state,
      stateReason: state === 'closed' ? 'completed' : null,
      labels: [...(seed.labels ?? [])],
      createdAt: now,
      updatedAt: now,
      closedAt: state === 'closed' ? now : null,
    };
    map.set(seed.number, issue);
    return issue;
  }

  /** Creates an issue under the next free number (issues and pull requests share the numbers). */
  createIssue(repository: RepositoryRecord, input: NewIssue): IssueRecord {
    const map = this.issueMap(repository);
    const number = Math.max(0, ...map.keys()) + 1;
    const now = this.timestamp();
    const issue: IssueRecord = {
      number,
      title: input.title,
      pullRequest: undefined,
      id: this.nextIssueId++,
      body: input.body,
      user: input.user,
      state: 'open',
      stateReason: null,
      labels: [...new Set(input.labels)],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
    };
    map.set(number, issue);
    return issue;
  }

  /** Applies a PATCH to an issue (or to the pull request behind its number). */
  updateIssue(issue: IssueRecord, changes: IssueChanges): void {
    const now = this.timestamp();
    const pr = issue.pullRequest;
    if (changes.title !== undefined) {
      issue.title = changes.title;
      if (pr) pr.title = changes.title;
    }
    if (changes.body !== undefined) {
      if (pr) pr.body = changes.body;
      else issue.body = changes.body;
    }
    if (changes.labels !== undefined) issue.labels = [...new Set(changes.labels)];
    const before = pr ? pr.state : (issue.state ?? 'open');
    if (changes.state !== undefined && changes.state !== before) {
      if (pr) {
        pr.state = changes.state;
        pr.closedAt = changes.state === 'closed' ? now : null;
      } else {
        issue.state = changes.state;
        issue.closedAt = changes.state === 'closed' ? now : null;
        issue.stateReason = changes.state === 'closed' ? (changes.stateReason ?? 'completed') : 'reopened';
      }
    } else if (changes.stateReason !== undefined && !pr) {
      issue.stateReason = changes.stateReason;
    }
    if (pr) pr.updatedAt = now;
    issue.updatedAt = now;
  }

  /** Every issue and pull request of the repository, by number. */
  issuesOf(repository: RepositoryRecord): IssueRecord[] {
    return [...this.issueMap(repository).values()].sort((a, b) => a.number - b.number);
  }

  /** The issues (not pull requests) of a repository, by number: what the action opened, for tests. */
  issueList(owner: string, repo: string): IssueRecord[] {
    const repository = this.repository(owner, repo);
    if (!repository) return [];
    return this.issuesOf(repository).filter((issue) => !issue.pullRequest);
  }

  addPullRequest(seed: PullRequestSeed): PullRequestRecord {
    const repository = this.seededRepository(seed.owner, seed.repo);
    const map = this.issueMap(repository);
    if (map.has(seed.number)) throw new Error(`stand-in: ${seed.owner}/${seed.repo}#${seed.number} is already seeded`);
    const merged = seed.merged ?? false;
    const state = seed.state ?? (merged ? 'closed' : 'open');
    if (merged && state !== 'closed')
      throw new Error(`stand-in: pull request #${seed.number} cannot be merged and open`);
    if (merged && !seed.mergeCommitSha)
      throw new Error(`stand-in: merged pull request #${seed.number} needs mergeCommitSha`);
    const now = this.timestamp();
    const pr: PullRequestRecord = {
      id: this.nextPullRequestId++,
      number: seed.number,
      title: seed.title ?? `Pull request ${seed.number}`,
      body: seed.body ?? null,
      user: seed.user ?? { login: 'octocat', id: 583231, type: 'User' },
      state,
      draft: seed.draft ?? false,
      merged,
      mergeCommitSha: seed.mergeCommitSha ?? null,
      headSha: seed.headSha,
      headRef: seed.headRef ?? `feature-${seed.number}`,
      headRepoFullName: seed.headRepoFullName ?? `${repository.owner.login}/${repository.name}`,
      baseRef: seed.baseRef ?? repository.defaultBranch,
      baseSha: seed.baseSha ?? '0'.repeat(40),
      createdAt: now,
      updatedAt: now,
      closedAt: state === 'closed' ? now : null,
      mergedAt: merged ? now : null,
    };
    repository.commits.add(pr.headSha);
    repository.commits.add(pr.baseSha);
    if (pr.mergeCommitSha) repository.commits.add(pr.mergeCommitSha);
    map.set(seed.number, { number: seed.number, title: pr.title, pullRequest: pr });
    return pr;
  }

  issue(repository: RepositoryRecord, number: number): IssueRecord | undefined {
    return this.issues.get(repository.id)?.get(number);
  }

  pullRequests(repository: RepositoryRecord): PullRequestRecord[] {
    const out: PullRequestRecord[] = [];
    for (const issue of this.issueMap(repository).values()) if (issue.pullRequest) out.push(issue.pullRequest);
    return out;
  }

  /** Seeds a comment as if it had been posted earlier (by the Actions bot unless `user`). */
  addComment(seed: CommentSeed): CommentRecord {
    const repository = this.seededRepository(seed.owner, seed.repo);
    if (!this.issue(repository, seed.issueNumber)) {
      throw new Error(
        `stand-in: ${seed.owner}/${seed.repo}#${seed.issueNumber} is not seeded (addIssue or addPullRequest first)`,
      );
    }
    return this.createComment(repository, seed.issueNumber, seed.body, seed.user ?? GITHUB_ACTIONS_BOT);
  }

  createComment(repository: RepositoryRecord, issueNumber: number, body: string, user: Account): CommentRecord {
    const id = this.nextCommentId++;
    const now = this.timestamp();
    const record: CommentRecord = {
      id,
      nodeId: `IC_kwDO${Buffer.from(`${repository.id}:${id}`).toString('base64url')}`,
      repositoryId: repository.id,
      issueNumber,
      body,
      user,
      createdAt: now,
      updatedAt: now,
    };
    this.commentsById.set(id, record);
    return record;
  }

  comment(id: number): CommentRecord | undefined {
    return this.commentsById.get(id);
  }

  updateComment(record: CommentRecord, body: string): void {
    record.body = body;
    record.updatedAt = this.timestamp();
  }

  deleteComment(id: number): void {
    this.commentsById.delete(id);
  }

  /** Comments on one issue or pull request, oldest first (GitHub's order). */
  comments(owner: string, repo: string, issueNumber: number): CommentRecord[] {
    const repository = this.repository(owner, repo);
    if (!repository) return [];
    return this.commentsOf(repository, issueNumber);
  }

  commentsOf(repository: RepositoryRecord, issueNumber: number): CommentRecord[] {
    return [...this.commentsById.values()]
      .filter((c) => c.repositoryId === repository.id && c.issueNumber === issueNumber)
      .sort((a, b) => a.id - b.id);
  }

  /** Refuses the next `times` requests with GitHub's secondary rate limit answer. */
  forceSecondaryRateLimit(options: { status?: 403 | 429; retryAfter?: number; times?: number } = {}): void {
    this.secondary = { status: options.status ?? 403, retryAfter: options.retryAfter ?? 60, times: options.times ?? 1 };
  }

  /** Consumes one forced secondary limit, if any is pending. */
  takeSecondaryRateLimit(): ForcedSecondaryLimit | undefined {
    const pending = this.secondary;
    if (!pending || pending.times <= 0) return undefined;
    pending.times -= 1;
    if (pending.times === 0) this.secondary = undefined;
    return { ...pending };
  }

  /**
   * Answers the next `times` matching requests with `status` and GitHub's error body
   * instead of serving them (default: 502 "Server Error", once, any request).
   */
  forceError(
    options: {
      status?: number;
      message?: string;
      method?: string;
      path?: RegExp;
      times?: number;
      html?: boolean;
      hang?: boolean;
    } = {},
  ): void {
    this.forcedErrors.push({
      status: options.status ?? 502,
      message: options.message ?? 'Server Error',
      method: options.method?.toUpperCase(),
      path: options.path,
      times: options.times ?? 1,
      ...(options.html ? { html: true } : {}),
      ...(options.hang ? { hang: true } : {}),
    });
  }

  /** Consumes one forced error matching this request, if any. */
  takeForcedError(method: string, path: string): ForcedError | undefined {
    const index = this.forcedErrors.findIndex(
      (f) => (f.method === undefined || f.method === method) && (f.path === undefined || f.path.test(path)),
    );
    if (index < 0) return undefined;
    const forced = this.forcedErrors[index];
    if (!forced) return undefined;
    forced.times -= 1;
    if (forced.times <= 0) this.forcedErrors.splice(index, 1);
    return { ...forced };
  }

  /** A request id shaped like GitHub's (five hex groups). */
  requestId(): string {
    const n = this.nextRequest++;
    const hex = (v: number, width: number): string => v.toString(16).toUpperCase().padStart(width, '0');
    return `${hex(0xc0de, 4)}:${hex(n, 6)}:${hex(n * 7919, 7)}:${hex(n * 104729, 7)}:${hex(0x6740_0000 + n, 8)}`;
  }

  /** Requests whose method and path (without query) match. */
  requestsTo(method: string, pathPattern: RegExp): RequestRecord[] {
    return this.requests.filter((r) => r.method === method && pathPattern.test(r.path.split('?')[0] ?? ''));
  }
}
