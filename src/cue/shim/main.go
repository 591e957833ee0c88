// Command cue-shim is the CUE engine of timoni-fleet: cuelang.org/go compiled to
// WebAssembly (GOOS=js GOARCH=wasm) and driven from TypeScript (src/cue/engine.ts).
//
// The TypeScript side calls one global function with a method name and a JSON
// request, and receives a JSON response (see dispatch.go). CUE values stay in Go
// behind integer handles (handles.go). Everything happens in memory: files are
// handed over with each load (memfs.go), module registries are disabled
// (registry.go), and nothing is ever written to standard output.
package main

func main() {
	serve()
}
