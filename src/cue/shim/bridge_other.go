//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// serve only explains, on standard error, that this program is meant to run as
// WebAssembly inside Node.js; the engine's logic is tested with `go test` instead.
func serve() {
	fmt.Fprintln(os.Stderr, "cue-shim runs only as WebAssembly (GOOS=js GOARCH=wasm) inside Node.js; see scripts/build-cue.mjs")
	os.Exit(2)
}
