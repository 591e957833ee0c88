// A minimal client for the stand-in's own tests: one request, its status, headers
// and parsed JSON body.

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; scheme?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
  };
  if (options.token !== undefined) headers.authorization = `${options.scheme ?? 'Bearer'} ${options.token}`;
  let payload: string | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

/** The body as a JSON object, failing with context when it is not one. */
export function object(answer: Answer): Record<string, unknown> {
  if (answer.body === null || typeof answer.body !== 'object' || Array.isArray(answer.body)) {
    throw new Error(`expected a JSON object, got status ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  return answer.body as Record<string, unknown>;
}

/** The body as a JSON array of objects, failing with context when it is not one. */
export function list(answer: Answer): Record<string, unknown>[] {
  if (!Array.isArray(answer.body))
    throw new Error(`expected a JSON array, got status ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body as Record<string, unknown>[];
}
