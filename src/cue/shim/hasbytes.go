package main

import (
	"cuelang.org/go/cue"
	"cuelang.org/go/encoding/yaml"
	goyaml "go.yaml.in/yaml/v3"
)

// hasBytes answers whether the YAML export of a value (toYAML) writes any value with
// the !!binary tag: CUE's YAML encoder writes every bytes value so. Timoni decodes an
// object through YAML only when it holds bytes (src/module/apply-sets.ts), and the
// answer spares the caller a second export of every object set, as YAML, only to look
// for the tag.
//
// It walks what an export walks: regular fields (no definitions, hidden or optional
// fields), list elements, defaults in place of disjunctions. A @yaml(,tag=...)
// attribute on a field replaces the tag the encoder writes for the field's value, so
// a value with any @yaml attribute on the way is answered from its YAML export itself.
// It answers for the value as it is; the caller exports it (toJSON), which fails when
// it is not concrete.
func (e *Engine) hasBytes(req valueRequest) (any, error) {
	v, err := e.value(req)
	if err != nil {
		return nil, err
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	switch findBytes(v) {
	case bytesFound:
		return true, nil
	case yamlAttributeFound:
		return yamlHasBinaryTag(v)
	}
	return false, nil
}

type bytesSearch int

const (
	noBytes bytesSearch = iota
	bytesFound
	// yamlAttributeFound: a field on the way has a @yaml attribute, which may change
	// the tag of its value.
	yamlAttributeFound
)

// findBytes walks v as an export does until it meets a bytes value or a field with a
// @yaml attribute. A bytes value met first is written with !!binary whatever follows:
// an attribute only changes the tag of its own field's value.
func findBytes(v cue.Value) bytesSearch {
	if d, ok := v.Default(); ok {
		v = d
	}
	switch v.Kind() {
	case cue.BytesKind:
		return bytesFound
	case cue.StructKind:
		fields, err := v.Fields()
		if err != nil {
			return noBytes
		}
		for fields.Next() {
			field := fields.Value()
			if hasYAMLAttribute(field) {
				return yamlAttributeFound
			}
			if found := findBytes(field); found != noBytes {
				return found
			}
		}
	case cue.ListKind:
		elements, err := v.List()
		if err != nil {
			return noBytes
		}
		for elements.Next() {
			if found := findBytes(elements.Value()); found != noBytes {
				return found
			}
		}
	}
	return noBytes
}

// hasYAMLAttribute reports whether a field carries a @yaml attribute, well-formed or
// not (a malformed one makes the YAML export fail).
func hasYAMLAttribute(field cue.Value) bool {
	for _, a := range field.Attributes(cue.FieldAttr) {
		if a.Name() == "yaml" {
			return true
		}
	}
	return false
}

// yamlHasBinaryTag exports v as toYAML does and looks for the tag in the document
// read back; the error is toYAML's.
func yamlHasBinaryTag(v cue.Value) (bool, error) {
	if err := concrete(v); err != nil {
		return false, err
	}
	data, err := yaml.Encode(v)
	if err != nil {
		return false, err
	}
	var doc goyaml.Node
	if err := goyaml.Unmarshal(data, &doc); err != nil {
		return false, err
	}
	return nodeHasTag(&doc, "!!binary"), nil
}

func nodeHasTag(n *goyaml.Node, tag string) bool {
	if n.Tag == tag {
		return true
	}
	for _, child := range n.Content {
		if nodeHasTag(child, tag) {
			return true
		}
	}
	return false
}
