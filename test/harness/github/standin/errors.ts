// GitHub's REST error bodies. Since 2024 GitHub adds `status` (the HTTP status as a
// string) beside `message` and `documentation_url`; clients such as Octokit read
// `message` and `errors`.

export const DOCS = 'https://docs.github.com/rest';

/** documentation_url of each operation the stand-in serves, as GitHub links them in errors. */
export const OPERATION_DOCS = {
  getRepository: `${DOCS}/repos/repos#get-a-repository`,
  listIssueComments: `${DOCS}/issues/comments#list-issue-comments`,
  createIssueComment: `${DOCS}/issues/comments#create-an-issue-comment`,
  getIssueComment: `${DOCS}/issues/comments#get-an-issue-comment`,
  updateIssueComment: `${DOCS}/issues/comments#update-an-issue-comment`,
  deleteIssueComment: `${DOCS}/issues/comments#delete-an-issue-comment`,
  listRepositoryIssues: `${DOCS}/issues/issues#list-repository-issues`,
  createIssue: `${DOCS}/issues/issues#create-an-issue`,
  getIssue: `${DOCS}/issues/issues#get-an-issue`,
  updateIssue: `${DOCS}/issues/issues#update-an-issue`,
  getPullRequest: `${DOCS}/pulls/pulls#get-a-pull-request`,
  listPullRequestsForCommit: `${DOCS}/commits/commits#list-pull-requests-associated-with-a-commit`,
  getContent: `${DOCS}/repos/contents#get-repository-content`,
  rateLimit: `${DOCS}/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user`,
} as const;

export type Operation = keyof typeof OPERATION_DOCS;

export interface ValidationError {
  resource: string;
  code: string;
  field: string;
  message?: string;
}

export interface ErrorBody {
  message: string;
  errors?: ValidationError[];
  documentation_url: string;
  status: string;
}

/** An error answer: status code, body and any extra headers (retry-after). */
export class GitHubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly documentationUrl: string,
    readonly errors?: ValidationError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): ErrorBody {
    const body: ErrorBody = {
      message: this.message,
      documentation_url: this.documentationUrl,
      status: String(this.status),
    };
    if (this.errors) {
      // GitHub puts `errors` between `message` and `documentation_url`.
      return {
        message: body.message,
        errors: this.errors,
        documentation_url: body.documentation_url,
        status: body.status,
      };
    }
    return body;
  }
}

export const notFound = (docs: string = DOCS): GitHubError => new GitHubError(404, 'Not Found', docs);

export const badCredentials = (): GitHubError => new GitHubError(401, 'Bad credentials', DOCS);

/** A write without any token, on a repository the caller could read anonymously. */
export const requiresAuthentication = (docs: string): GitHubError =>
  new GitHubError(401, 'Requires authentication', docs);

/** A write with a token that may only read (GITHUB_TOKEN of a pull request from a fork). */
export const notAccessibleByIntegration = (docs: string): GitHubError =>
  new GitHubError(403, 'Resource not accessible by integration', docs);

export const problemsParsingJson = (docs: string): GitHubError => new GitHubError(400, 'Problems parsing JSON', docs);

/** Request-schema failures: GitHub answers 422 "Invalid request." with the reason on following lines. */
export const invalidRequest = (reason: string, docs: string): GitHubError =>
  new GitHubError(422, `Invalid request.\n\n${reason}`, docs);

export const validationFailed = (errors: ValidationError[], docs: string): GitHubError =>
  new GitHubError(422, 'Validation Failed', docs, errors);
