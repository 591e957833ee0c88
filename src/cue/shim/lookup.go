package main

import (
	"fmt"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

// pathStep is one selector of a lookup path; hidden labels are kept by name
// because cue.ParsePath refuses them (they need the package they belong to).
type pathStep struct {
	selector cue.Selector
	hidden   string
}

// isHiddenName reports whether an identifier is a hidden label (_x or _#X).
func isHiddenName(name string) bool {
	return strings.HasPrefix(name, "_") && name != "_" && name != "_|_"
}

// parseLookupPath splits CUE path syntax ('a."b-c"[0]._hidden.#Def') into steps.
func parseLookupPath(p string) ([]pathStep, error) {
	if parsed := cue.ParsePath(p); parsed.Err() == nil {
		steps := make([]pathStep, 0, len(parsed.Selectors()))
		for _, sel := range parsed.Selectors() {
			steps = append(steps, pathStep{selector: sel})
		}
		return steps, nil
	}
	expr, err := parser.ParseExpr("path", p)
	if err != nil {
		return nil, fmt.Errorf("invalid CUE path %q: %w", p, err)
	}
	var steps []pathStep
	var walk func(x ast.Expr) error
	label := func(x ast.Node) error {
		switch l := x.(type) {
		case *ast.Ident:
			if isHiddenName(l.Name) {
				steps = append(steps, pathStep{hidden: l.Name})
				return nil
			}
			sel := cue.ParsePath(l.Name)
			if sel.Err() != nil || len(sel.Selectors()) != 1 {
				return fmt.Errorf("invalid CUE path %q: bad label %s", p, l.Name)
			}
			steps = append(steps, pathStep{selector: sel.Selectors()[0]})
		case *ast.BasicLit:
			switch l.Kind {
			case token.STRING:
				s, err := strconv.Unquote(l.Value)
				if err != nil {
					return fmt.Errorf("invalid CUE path %q: bad label %s", p, l.Value)
				}
				steps = append(steps, pathStep{selector: cue.Str(s)})
			case token.INT:
				n, err := strconv.Atoi(l.Value)
				if err != nil {
					return fmt.Errorf("invalid CUE path %q: bad index %s", p, l.Value)
				}
				steps = append(steps, pathStep{selector: cue.Index(n)})
			default:
				return fmt.Errorf("invalid CUE path %q: unexpected %s", p, l.Value)
			}
		default:
			return fmt.Errorf("invalid CUE path %q: unexpected %T", p, x)
		}
		return nil
	}
	walk = func(x ast.Expr) error {
		switch n := x.(type) {
		case *ast.SelectorExpr:
			if err := walk(n.X); err != nil {
				return err
			}
			return label(n.Sel)
		case *ast.IndexExpr:
			if err := walk(n.X); err != nil {
				return err
			}
			return label(n.Index)
		default:
			return label(x)
		}
	}
	if err := walk(expr); err != nil {
		return nil, err
	}
	return steps, nil
}

// lookupPath follows a path; hidden labels are matched by name among the value's
// hidden fields, whatever package they belong to.
func lookupPath(v cue.Value, p string) (cue.Value, error) {
	steps, err := parseLookupPath(p)
	if err != nil {
		return cue.Value{}, err
	}
	for _, step := range steps {
		if step.hidden == "" {
			v = v.LookupPath(cue.MakePath(step.selector))
			continue
		}
		v = hiddenField(v, step.hidden)
	}
	return v, nil
}

func hiddenField(v cue.Value, name string) cue.Value {
	if iter, err := v.Fields(cue.Hidden(true), cue.Definitions(true), cue.Optional(true)); err == nil {
		for iter.Next() {
			if iter.Selector().LabelType().IsHidden() && iter.Selector().String() == name {
				return iter.Value()
			}
		}
	}
	// Not there: a value that does not exist, with CUE's own "not found" error.
	return v.LookupPath(cue.MakePath(cue.Hid(name, "_")))
}
