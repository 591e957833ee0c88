// Types of scripts/changelog-section.mjs, for the tests that import it.
/** The text of `version`'s section of `changelog`, without its heading; throws when it is missing, undated or empty. */
export function changelogSection(changelog: string, version: string): string;
