package main

import (
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// Engine owns the values handed out to the caller.
//
// Every compile gets its own CUE context, and so does every load, except that loads
// of the same set of cue.mod files share one (bounded, renewed after some loads; see
// modulecontext.go); the values derived from a value share its context. A CUE context keeps everything ever built in it:
// with one shared context, each load of a Kubernetes module kept about 6.5 MB
// for the life of the process, while with a context per load the heap stays flat.
// Values of different contexts are combined by rebuilding one in the other's
// context (see sameContext).
type Engine struct {
	mu      sync.Mutex
	handles *handleTable
	names   *sourceNames
	// modules are the contexts shared by the loads of one set of cue.mod files
	// (modulecontext.go): an exception to the context per load.
	modules *moduleContexts
	// fileSets are files sent once for many loads (filesets.go).
	fileSets *fileSets
}

// NewEngine returns an engine with no values.
func NewEngine() *Engine {
	return &Engine{handles: newHandleTable(), names: newSourceNames(), modules: &moduleContexts{}, fileSets: newFileSets()}
}

// newContext returns a fresh CUE context for one load or compile.
func newContext() *cue.Context {
	return cuecontext.New()
}

// handleResult is the answer of every method that creates a value.
type handleResult struct {
	Handle uint32 `json:"handle"`
}

func (e *Engine) newHandle(v cue.Value) handleResult {
	return handleResult{Handle: e.handles.add(v)}
}
