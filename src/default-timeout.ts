// The default time limit of one cluster's apply or delete, all its instances' waits
// together (Timoni's `--timeout`, 5m). The run options' contract (fleet/run-options.ts)
// shows it in action.yml and --help and hands it down with every run; kube's instance apply
// and delete fall back to it when a caller gives none. It lives on the ground floor so that
// kube takes it from here rather than from the fleet above it.
export const DEFAULT_TIMEOUT = '5m';
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;
