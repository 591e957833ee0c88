package main

import (
	"fmt"

	"cuelang.org/go/cue"
)

// Attribute is one field attribute, e.g. name "timoni", body "runtime:string:NAME".
type Attribute struct {
	Name string `json:"name"`
	Body string `json:"body"`
}

// FieldInfo describes one field of a struct (see FieldInfo in src/cue/types.ts).
type FieldInfo struct {
	Label      string      `json:"label"`
	Name       string      `json:"name"`
	Position   *Position   `json:"position,omitempty"`
	Optional   bool        `json:"optional"`
	Required   bool        `json:"required"`
	Hidden     bool        `json:"hidden"`
	Definition bool        `json:"definition"`
	Attributes []Attribute `json:"attributes"`
}

// selectorNames returns the label as CUE text (quoted when needed, without the
// ? or ! marker) and the unquoted name.
func selectorNames(sel cue.Selector) (label, name string) {
	if sel.LabelType() == cue.StringLabel {
		name = sel.Unquoted()
		return cue.Str(name).String(), name
	}
	label = sel.String()
	if sel.ConstraintType() != 0 && len(label) > 0 {
		if last := label[len(label)-1]; last == '?' || last == '!' {
			label = label[:len(label)-1]
		}
	}
	return label, label
}

func fieldInfos(names *sourceNames, v cue.Value, hidden, definitions, optional bool) ([]FieldInfo, error) {
	iter, err := v.Fields(cue.Hidden(hidden), cue.Definitions(definitions), cue.Optional(optional))
	if err != nil {
		return nil, err
	}
	out := []FieldInfo{}
	for iter.Next() {
		sel := iter.Selector()
		label, name := selectorNames(sel)
		fv := iter.Value()
		info := FieldInfo{
			Label:      label,
			Name:       name,
			Optional:   sel.ConstraintType() == cue.OptionalConstraint,
			Required:   sel.ConstraintType() == cue.RequiredConstraint,
			Hidden:     sel.LabelType().IsHidden(),
			Definition: sel.LabelType().IsDefinition(),
			Attributes: []Attribute{},
		}
		if pos, ok := names.position(fv.Pos()); ok {
			info.Position = &pos
		}
		for _, a := range fv.Attributes(cue.FieldAttr) {
			info.Attributes = append(info.Attributes, Attribute{Name: a.Name(), Body: a.Contents()})
		}
		out = append(out, info)
	}
	return out, nil
}

func (e *Engine) fields(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	infos, err := fieldInfos(e.names, v, req.Hidden, req.Definitions, req.Optional)
	if err != nil {
		return nil, fmt.Errorf("listing fields: %w", err)
	}
	return infos, nil
}
