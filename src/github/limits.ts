// GitHub's size limits for the two surfaces we write to, and how GitHub measures them: the
// one place these numbers live (the reports fit within them, the comment upsert checks them).
//
// PR/issue comments. The REST API refuses a body with 422 "Body is too long (maximum is
// 65536 characters)". What GitHub counts is not documented, and public measurements
// disagree: some found the comment surface refusing at 262,144 UTF-8 bytes, others found
// PR bodies refused past 65,536 code points, ASCII or not. We therefore count UTF-16 code
// units (JavaScript's `String.prototype.length`) against 65,536:
//   - code units >= code points, so the count is never below a code-point count;
//   - one code unit encodes to at most 3 UTF-8 bytes (an astral character is 2 units and
//     4 bytes), so 65,536 units are at most 196,608 bytes, below 262,144.
// A body within COMMENT_LIMIT by this count is within every reading of the limit.
//
// Job summaries. The runner uploads `$GITHUB_STEP_SUMMARY` only when the file is at most
// 1,048,576 bytes (1024k) per step; a larger file is dropped whole ("upload aborted"),
// never cut. The unit is the file's UTF-8 bytes. The runner may rewrite `\n` as `\r\n` on
// Windows and the action may write more than our summary to the same step, so the default
// budget keeps a margin below the hard limit.

/** GitHub's limit for a comment body, in UTF-16 code units (see above). */
export const COMMENT_LIMIT = 65_536;

/** The runner's limit for one step's job summary file, in UTF-8 bytes. */
export const STEP_SUMMARY_LIMIT = 1_048_576;

/** Default budget of our job summary: the hard limit less 64 KiB for CRLF and other writes. */
export const STEP_SUMMARY_BUDGET = STEP_SUMMARY_LIMIT - 65_536;

/** A way to measure text against one of the limits. */
export type Measure = (text: string) => number;

/** Length of a comment as counted against COMMENT_LIMIT: UTF-16 code units. */
export const commentLength: Measure = (text) => text.length;

/** Size of a job summary as counted against STEP_SUMMARY_LIMIT: UTF-8 bytes. */
export const utf8Length: Measure = (text) => Buffer.byteLength(text, 'utf8');
