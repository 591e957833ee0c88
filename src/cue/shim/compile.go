package main

import (
	"encoding/json"
	"fmt"

	"cuelang.org/go/cue"
	cuejson "cuelang.org/go/encoding/json"
)

type compileRequest struct {
	Source   string          `json:"source"`
	Filename string          `json:"filename"`
	Scope    json.RawMessage `json:"scope"`
}

// scopeSourceName names the JSON scope in positions and errors.
const scopeSourceName = "<scope JSON>"

// defaultCompileFilename names compiled text when the caller gives no name.
const defaultCompileFilename = "<expression>"

// compile evaluates CUE text (an expression or a whole file). The fields of the
// optional JSON scope object are bound as identifiers, as Timoni binds `obj` when
// it evaluates a runtime query's `for` expressions.
func (e *Engine) compile(req compileRequest) (any, error) {
	filename := req.Filename
	if filename == "" {
		filename = defaultCompileFilename
	}
	ctx := newContext()
	opts := []cue.BuildOption{cue.Filename(filename)}
	if len(req.Scope) > 0 && string(req.Scope) != "null" {
		expr, err := cuejson.Extract(scopeSourceName, req.Scope)
		if err != nil {
			return nil, fmt.Errorf("compile scope: %w", err)
		}
		scope := ctx.BuildExpr(expr)
		if err := scope.Err(); err != nil {
			return nil, err
		}
		if scope.Kind() != cue.StructKind {
			return nil, fmt.Errorf("compile scope must be a JSON object mapping identifiers to values, not %s", scope.Kind())
		}
		opts = append(opts, cue.Scope(scope))
	}
	v := ctx.CompileString(req.Source, opts...)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.newHandle(v), nil
}
