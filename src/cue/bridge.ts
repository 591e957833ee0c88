// What both CUE engines (WebAssembly and native) offer the TypeScript face: one
// synchronous call per operation, a method name and a JSON request in, the JSON
// response out (src/cue/shim/dispatch.go).

/** Calls one engine method with a JSON request; returns the JSON response. */
export type Bridge = (method: string, request: string) => string;

/**
 * The same call, answered through the event loop: the native engine evaluates while this
 * thread goes on (module builds, beside the clusters' requests); the WebAssembly engine,
 * which runs on this thread, answers at once.
 */
export type AsyncBridge = (method: string, request: string) => Promise<string>;

/** Which build of the Go shim runs the engine. */
export type CueEngineKind = 'native' | 'wasm';
