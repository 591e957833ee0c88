//go:build tools

// Package cuecli pins the native cue CLI (cuelang.org/go/cmd/cue) at the CUE version
// of the engine, so that bench/cue.ts can compare the WebAssembly engine with it and
// tests can generate CUE from Go types. It is built by test/support/go-binary.ts.
package cuecli

import _ "cuelang.org/go/cmd/cue"
