package main

import (
	"fmt"

	"cuelang.org/go/cue"
)

// valuesField is the field of values.cue that holds a module's values.
const valuesField = "values"

// instanceValuesRequest asks for what Timoni's bundle commands do with an instance's
// values (internal/engine: ModuleBuilder.OverlayValuesFileWithDefaults, then
// GetDefaultValues for the instance record). Base is the text of the module's
// values.cue; each overlay is the CUE text of the bundle's values for the instance,
// as Go's %v prints a cue.Value (cue.Value.Format: the simplified export, docs kept,
// defaults and constraints kept).
type instanceValuesRequest struct {
	Base     string   `json:"base"`
	Overlays []string `json:"overlays"`
	Package  string   `json:"package"`
}

type instanceValuesResult struct {
	// Source is the values.cue the instance is built with.
	Source string `json:"source"`
	// Values is the text Timoni stores as the instance record's values: the evaluated
	// values struct of Source, without the field name.
	Values string `json:"values"`
}

// mergeInstanceValues follows Timoni step by step, because the order of the fields in
// the module's #config depends on it (and so does every checksum a module computes
// over yaml.Marshal(#config)): CUE orders fields by the source positions they come
// from, and positions of text compiled without a file name compare by offset alone.
// So, as Timoni's ValuesBuilder does, values.cue and every overlay (`values: <text>`)
// are compiled without file names in one context, then merged with overlayOnto
// (Timoni's MergeValue), and the result is printed with %v. Bundle values are CUE text,
// not JSON: a default (`*2 | int`) reaches the module as a default, where it usually
// conflicts with the module's own default and fails the build, as in Timoni.
func (e *Engine) mergeInstanceValues(req instanceValuesRequest) (any, error) {
	ctx := newContext()
	path := cue.ParsePath(valuesField)
	base := ctx.CompileString(req.Base)
	if err := base.Err(); err != nil {
		return nil, fmt.Errorf("loading values from values.cue failed: %w", err)
	}
	merged := base.LookupPath(path)
	if err := merged.Err(); err != nil {
		return nil, fmt.Errorf("loading values from values.cue failed: %w", err)
	}
	for i, text := range req.Overlays {
		overlay := ctx.CompileString(fmt.Sprintf("%s: %s", valuesField, text))
		if err := overlay.Err(); err != nil {
			return nil, fmt.Errorf("loading bundle values (overlay %d) failed: %w", i+1, err)
		}
		v := overlay.LookupPath(path)
		if err := v.Err(); err != nil {
			return nil, fmt.Errorf("loading bundle values (overlay %d) failed: %w", i+1, err)
		}
		merged = overlayOnto(v, merged)
	}
	if err := merged.Err(); err != nil {
		return nil, err
	}
	pkg := req.Package
	if pkg == "" {
		pkg = "main"
	}
	source := fmt.Sprintf("package %s\n%s: %v", pkg, valuesField, merged)
	// GetDefaultValues: the overlay file compiled on its own, its values evaluated.
	stored := ctx.CompileString(source).LookupPath(path)
	if err := stored.Err(); err != nil {
		return nil, fmt.Errorf("reading back the merged values failed: %w", err)
	}
	return instanceValuesResult{Source: source, Values: fmt.Sprintf("%v", stored.Eval())}, nil
}

func overlayOnto(overlay, base cue.Value) cue.Value {
	switch base.IncompleteKind() {
	case cue.StructKind:
		return overlayStruct(overlay, base)
	case cue.ListKind:
		return overlayList(overlay, base)
	default:
		return overlay
	}
}

// overlayStruct keeps every field of the overlay and adds, or merges into it, every
// field of the base, hidden fields, definitions and optional fields included.
func overlayStruct(overlay, base cue.Value) cue.Value {
	result := overlay
	fields, err := base.Fields(cue.Concrete(true), cue.Attributes(true), cue.Definitions(true), cue.Hidden(true), cue.Optional(true), cue.Docs(true))
	if err != nil {
		return result
	}
	for fields.Next() {
		path := cue.MakePath(fields.Selector())
		if fromOverlay := overlay.LookupPath(path); fromOverlay.Exists() {
			result = result.FillPath(path, overlayOnto(fromOverlay, fields.Value()))
		} else {
			result = result.FillPath(path, fields.Value())
		}
	}
	return result
}

// overlayList pairs the elements of both lists by index, as far as both go.
func overlayList(overlay, base cue.Value) cue.Value {
	overlayItems, _ := overlay.List()
	baseItems, _ := base.List()
	var items []cue.Value
	for overlayItems.Next() && baseItems.Next() {
		items = append(items, overlayOnto(overlayItems.Value(), baseItems.Value()))
	}
	return base.Context().NewList(items...)
}
