// GitHub's page-number pagination: `per_page` (default 30, at most 100) and `page`
// (from 1), and the `Link` header. The header lists rel="prev", rel="next",
// rel="last", rel="first" in that order, each present only when it applies, and is
// left out when everything fits on one page. Its URLs keep the request's other query
// parameters and replace `page`; GitHub writes them with the repository's numeric id
// (`/repositories/{id}/...`), which the stand-in also serves.

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

export interface Page<T> {
  items: T[];
  link: string | undefined;
}

function positiveInteger(raw: string | null, fallback: number): number {
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return fallback;
  const value = Number.parseInt(raw, 10);
  return value >= 1 ? value : fallback;
}

/** Reads `per_page` and `page` the way GitHub does: bad values fall back to the defaults. */
export function pageParameters(query: URLSearchParams): { perPage: number; page: number } {
  const perPage = Math.min(positiveInteger(query.get('per_page'), DEFAULT_PER_PAGE), MAX_PER_PAGE);
  const page = positiveInteger(query.get('page'), 1);
  return { perPage, page };
}

/**
 * Cuts `all` into the requested page. `linkBase` is the absolute URL (without query)
 * the Link header points at; `query` is the request's query string.
 */
export function paginate<T>(all: readonly T[], query: URLSearchParams, linkBase: string): Page<T> {
  const { perPage, page } = pageParameters(query);
  const start = (page - 1) * perPage;
  const items = all.slice(start, start + perPage);
  const lastPage = Math.max(1, Math.ceil(all.length / perPage));
  const pageUrl = (n: number): string => {
    const params = new URLSearchParams(query);
    params.set('page', String(n));
    return `<${linkBase}?${params.toString()}>`;
  };
  const links: string[] = [];
  if (page > 1) links.push(`${pageUrl(Math.min(page - 1, lastPage))}; rel="prev"`);
  if (page < lastPage) {
    links.push(`${pageUrl(page + 1)}; rel="next"`);
    links.push(`${pageUrl(lastPage)}; rel="last"`);
  }
  if (page > 1) links.push(`${pageUrl(1)}; rel="first"`);
  return { items, link: links.length > 0 ? links.join(', ') : undefined };
}
