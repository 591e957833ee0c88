package main

import (
	"encoding/json"
	"fmt"

	"cuelang.org/go/cue"
	cuejson "cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/yaml"
)

// valueRequest is the request of every method that works on one value; each
// method reads the fields it needs.
type valueRequest struct {
	Handle   uint32          `json:"handle"`
	Path     string          `json:"path"`
	JSON     json.RawMessage `json:"json"`
	Other    uint32          `json:"other"`
	Concrete bool            `json:"concrete"`
	Final    bool            `json:"final"`
	// Field listing options.
	Hidden      bool `json:"hidden"`
	Definitions bool `json:"definitions"`
	Optional    bool `json:"optional"`
}

// fillSourceName names the JSON given to fill in positions and errors.
const fillSourceName = "<fill JSON>"

func parsePath(p string) (cue.Path, error) {
	parsed := cue.ParsePath(p)
	if err := parsed.Err(); err != nil {
		return cue.Path{}, fmt.Errorf("invalid CUE path %q: %w", p, err)
	}
	return parsed, nil
}

func (e *Engine) value(req valueRequest) (cue.Value, error) {
	return e.handles.get(req.Handle)
}

func (e *Engine) lookup(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	found, err := lookupPath(v, req.Path)
	if err != nil {
		return nil, err
	}
	return e.newHandle(found), nil
}

func (e *Engine) exists(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	return v.Exists(), nil
}

// kindName maps a value to the names of CueValue.kind() in src/cue/types.ts:
// concrete values by their kind (defaults resolved), errors as "bottom", and
// non-concrete values as "top" (_), "number" (int | float) or "incomplete".
func kindName(v cue.Value) string {
	if v.Err() != nil {
		return "bottom"
	}
	if d, ok := v.Default(); ok {
		v = d
	}
	switch v.Kind() {
	case cue.NullKind:
		return "null"
	case cue.BoolKind:
		return "bool"
	case cue.IntKind:
		return "int"
	case cue.FloatKind:
		return "float"
	case cue.StringKind:
		return "string"
	case cue.BytesKind:
		return "bytes"
	case cue.StructKind:
		return "struct"
	case cue.ListKind:
		return "list"
	}
	switch v.IncompleteKind() {
	case cue.TopKind:
		return "top"
	case cue.NumberKind:
		return "number"
	case cue.BottomKind:
		return "bottom"
	}
	return "incomplete"
}

func (e *Engine) kind(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	return kindName(v), nil
}

func (e *Engine) fill(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	p, err := parsePath(req.Path)
	if err != nil {
		return nil, err
	}
	if len(req.JSON) == 0 {
		return nil, fmt.Errorf("fill %q: no JSON value given", req.Path)
	}
	expr, err := cuejson.Extract(fillSourceName, req.JSON)
	if err != nil {
		return nil, fmt.Errorf("fill %q: %w", req.Path, err)
	}
	x := v.Context().BuildExpr(expr)
	if err := x.Err(); err != nil {
		return nil, err
	}
	return e.newHandle(v.FillPath(p, x)), nil
}

func (e *Engine) fillValue(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	other, err := e.handles.get(req.Other)
	if err != nil {
		return nil, err
	}
	if other, err = sameContext(v, other); err != nil {
		return nil, err
	}
	p, err := parsePath(req.Path)
	if err != nil {
		return nil, err
	}
	return e.newHandle(v.FillPath(p, other)), nil
}

func (e *Engine) unify(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	other, err := e.handles.get(req.Other)
	if err != nil {
		return nil, err
	}
	if other, err = sameContext(v, other); err != nil {
		return nil, err
	}
	return e.newHandle(v.Unify(other)), nil
}

func (e *Engine) validate(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	opts := []cue.Option{cue.Concrete(req.Concrete)}
	if req.Final {
		opts = append(opts, cue.Final())
	}
	diagnostics := e.names.diagnostics(v.Validate(opts...))
	if diagnostics == nil {
		diagnostics = []Diagnostic{}
	}
	return diagnostics, nil
}

// concrete checks that v can be exported, reporting every incomplete field.
func concrete(v cue.Value) error {
	if err := v.Err(); err != nil {
		return err
	}
	return v.Validate(cue.Concrete(true), cue.Final())
}

func (e *Engine) toJSON(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	if err := concrete(v); err != nil {
		return nil, err
	}
	data, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(data), nil
}

func (e *Engine) toYAML(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	if err := concrete(v); err != nil {
		return nil, err
	}
	data, err := yaml.Encode(v)
	if err != nil {
		return nil, err
	}
	return string(data), nil
}

func (e *Engine) toCUE(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	return fmt.Sprint(v), nil
}

func (e *Engine) position(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	if pos, ok := e.names.position(v.Pos()); ok {
		return pos, nil
	}
	return nil, nil
}

func (e *Engine) free(req valueRequest) (any, error) {
	e.handles.free(req.Handle)
	return true, nil
}

// freeManyRequest frees several values at once (src/cue/deferred-frees.ts).
type freeManyRequest struct {
	Handles []uint32 `json:"handles"`
}

func (e *Engine) freeMany(req freeManyRequest) (any, error) {
	for _, h := range req.Handles {
		e.handles.free(h)
	}
	return true, nil
}

type statsRequest struct{}

type statsResult struct {
	Handles int `json:"handles"`
}

func (e *Engine) stats(statsRequest) (any, error) {
	return statsResult{Handles: e.handles.len()}, nil
}
