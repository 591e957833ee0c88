package main

import (
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// Engine owns one CUE context and the values handed out to the caller. All
// values share the context, so any two of them can be unified.
type Engine struct {
	mu      sync.Mutex
	ctx     *cue.Context
	handles *handleTable
	names   *sourceNames
}

// NewEngine returns an engine with a fresh CUE context and no values.
func NewEngine() *Engine {
	return &Engine{ctx: cuecontext.New(), handles: newHandleTable(), names: newSourceNames()}
}

// handleResult is the answer of every method that creates a value.
type handleResult struct {
	Handle uint32 `json:"handle"`
}

func (e *Engine) newHandle(v cue.Value) handleResult {
	return handleResult{Handle: e.handles.add(v)}
}
