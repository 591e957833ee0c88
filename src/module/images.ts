// The container images an instance uses: every struct in `timoni.instance.config` that
// has the fields of Timoni's #Image (repository, tag, digest, reference) contributes its
// reference; sorted, without duplicates, as Timoni records them in the inventory.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const IMAGE_FIELDS = ['repository', 'tag', 'digest', 'reference'];

export function collectImages(config: unknown): string[] {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
      return;
    }
    if (!isRecord(value)) return;
    if (IMAGE_FIELDS.every((field) => field in value) && typeof value.reference === 'string') found.add(value.reference);
    Object.values(value).forEach(walk);
  };
  walk(config);
  return [...found].sort();
}
