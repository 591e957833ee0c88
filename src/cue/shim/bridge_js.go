//go:build js && wasm

package main

import "syscall/js"

// globalFunctionName is the JavaScript global through which the TypeScript side
// calls the engine: __timoniFleetCue(method: string, request: string): string.
const globalFunctionName = "__timoniFleetCue"

// readyFunctionName is a JavaScript global callback, set by the TypeScript side
// before the program starts, that is called once the engine is ready.
const readyFunctionName = "__timoniFleetCueReady"

// serve exposes the engine to JavaScript and blocks forever: the program must keep
// running for the exported function to stay callable.
func serve() {
	engine := NewEngine()
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
			return errorResponse(errInvalidCall)
		}
		return engine.Call(args[0].String(), args[1].String())
	})
	js.Global().Set(globalFunctionName, call)
	if ready := js.Global().Get(readyFunctionName); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}
