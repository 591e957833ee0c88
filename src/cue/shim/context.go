package main

import (
	"fmt"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
)

// sameContext returns other as a value of v's CUE context, rebuilding it from its
// syntax when it comes from another load or compile. Values of different contexts
// must never be unified directly: labels are numbered per context.
func sameContext(v, other cue.Value) (cue.Value, error) {
	if v.Context() == other.Context() {
		return other, nil
	}
	syntax := other.Syntax(cue.Attributes(true), cue.Definitions(true), cue.Hidden(true), cue.Optional(true), cue.Docs(true))
	var rebuilt cue.Value
	switch node := syntax.(type) {
	case ast.Expr:
		rebuilt = v.Context().BuildExpr(node)
	case *ast.File:
		rebuilt = v.Context().BuildFile(node)
	default:
		return cue.Value{}, fmt.Errorf("cannot combine values of two different loads: unexpected syntax %T", syntax)
	}
	if err := rebuilt.Err(); err != nil {
		return cue.Value{}, fmt.Errorf("cannot combine values of two different loads (the second one does not stand alone: %w)", err)
	}
	return rebuilt, nil
}
