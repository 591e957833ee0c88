package main

import (
	"fmt"
	"path"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	cuejson "cuelang.org/go/encoding/json"
	"cuelang.org/go/encoding/yaml"
)

// Timoni's runtime attributes have the form @timoni(runtime:<type>:<NAME>)
// (api/v1alpha1/runtime.go in Timoni).
const (
	runtimeAttributeKey  = "timoni"
	runtimeAttributeKind = "runtime"
)

// runtimeAttribute is a parsed @timoni(runtime:<type>:<NAME>) attribute.
type runtimeAttribute struct {
	body string // attribute body as written, e.g. runtime:string:NAME
	typ  string
	name string
	pos  token.Pos
}

// parseRuntimeAttribute recognises a runtime attribute; ok is false for any other
// attribute, including @timoni attributes of another form.
func parseRuntimeAttribute(a *ast.Attribute) (runtimeAttribute, bool) {
	key, body := a.Split()
	if key != runtimeAttributeKey {
		return runtimeAttribute{}, false
	}
	parts := strings.Split(body, ":")
	if len(parts) != 3 || parts[0] != runtimeAttributeKind {
		return runtimeAttribute{}, false
	}
	return runtimeAttribute{body: body, typ: parts[1], name: parts[2], pos: a.Pos()}, true
}

// governingAttribute returns the attribute Timoni acts on for a field: its first
// @timoni attribute, when that one is a runtime attribute.
func governingAttribute(f *ast.Field) (runtimeAttribute, bool) {
	for _, a := range f.Attrs {
		if key, _ := a.Split(); key == runtimeAttributeKey {
			return parseRuntimeAttribute(a)
		}
	}
	return runtimeAttribute{}, false
}

// parseSource reads .cue, .json or .yaml/.yml text (chosen by the extension of
// filename) into CUE syntax, as Timoni does for bundle and runtime files.
func parseSource(filename, content string) (ast.Node, error) {
	switch ext := strings.ToLower(path.Ext(filename)); ext {
	case ".cue":
		return parser.ParseFile(filename, content, parser.ParseComments)
	case ".json":
		return cuejson.Extract(filename, []byte(content))
	case ".yaml", ".yml":
		return yaml.Extract(filename, []byte(content))
	default:
		return nil, fmt.Errorf("%s: unsupported file extension %q (expected .cue, .json, .yaml or .yml)", filename, ext)
	}
}

// labelText renders a field label for a diagnostic path.
func labelText(l ast.Label) string {
	name, isIdent, err := ast.LabelName(l)
	if err == nil {
		if isIdent {
			return name
		}
		return cue.Str(name).String()
	}
	if text, ferr := format.Node(l); ferr == nil {
		return string(text)
	}
	return "?"
}

// walkFields calls visit for every field of the syntax tree, at any depth, with
// the dotted path of labels leading to it.
func walkFields(node ast.Node, visit func(f *ast.Field, fieldPath string)) {
	var labels []string
	ast.Walk(node, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok {
			labels = append(labels, labelText(f.Label))
			visit(f, strings.Join(labels, "."))
		}
		return true
	}, func(n ast.Node) {
		if _, ok := n.(*ast.Field); ok {
			labels = labels[:len(labels)-1]
		}
	})
}

// runtimeLiteral converts a runtime value to the literal of the attribute's type.
// Its errors never contain the value: runtime values may be secrets.
func runtimeLiteral(typ, value string) (ast.Expr, error) {
	switch typ {
	case "string":
		return ast.NewLit(token.STRING, literal.String.Quote(value)), nil
	case "number":
		var num literal.NumInfo
		if err := literal.ParseNum(value, &num); err != nil {
			// ParseNum's error quotes the value; it is deliberately dropped.
			return nil, fmt.Errorf("value must be a CUE number")
		}
		if num.IsInt() {
			return ast.NewLit(token.INT, value), nil
		}
		return ast.NewLit(token.FLOAT, value), nil
	case "bool":
		if value != "true" && value != "false" {
			return nil, fmt.Errorf("value must be 'true' or 'false'")
		}
		return ast.NewBool(value == "true"), nil
	default:
		return nil, fmt.Errorf("unknown type '%s', must be string, number or bool", typ)
	}
}

// InjectRuntimeValues replaces the value of every field whose governing
// @timoni(runtime:<type>:<NAME>) attribute names a key of values with that value
// as a literal, and returns the formatted CUE text. Fields whose NAME has no value
// are left as written. Like Timoni, an attribute's type is only checked when a
// value is injected. Every failing attribute is reported.
func InjectRuntimeValues(filename, content string, values map[string]string) (string, error) {
	node, err := parseSource(filename, content)
	if err != nil {
		return "", err
	}
	var failures []Diagnostic
	walkFields(node, func(f *ast.Field, fieldPath string) {
		attr, ok := governingAttribute(f)
		if !ok {
			return
		}
		value, ok := values[attr.name]
		if !ok {
			return
		}
		lit, err := runtimeLiteral(attr.typ, value)
		if err != nil {
			d := Diagnostic{
				Message:   fmt.Sprintf("cannot inject runtime value into '@%s(%s)': %v", runtimeAttributeKey, attr.body, err),
				Path:      fieldPath,
				Positions: []Position{},
			}
			if pos, ok := (*sourceNames)(nil).position(attr.pos); ok {
				d.Positions = append(d.Positions, pos)
			}
			failures = append(failures, d)
			return
		}
		f.Value = lit
	})
	if len(failures) > 0 {
		return "", &diagnosticError{diagnostics: failures}
	}
	out, err := format.Node(node)
	if err != nil {
		return "", fmt.Errorf("%s: formatting the injected CUE: %w", filename, err)
	}
	return string(out), nil
}

// RuntimeAttributeInfo describes one runtime attribute found in a source file.
type RuntimeAttributeInfo struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	Field    string    `json:"field"`
	Position *Position `json:"position,omitempty"`
}

// ListRuntimeAttributes returns every runtime attribute of the source, in source
// order, as Timoni's ListAttributes finds them.
func ListRuntimeAttributes(filename, content string) ([]RuntimeAttributeInfo, error) {
	node, err := parseSource(filename, content)
	if err != nil {
		return nil, err
	}
	out := []RuntimeAttributeInfo{}
	walkFields(node, func(f *ast.Field, fieldPath string) {
		for _, a := range f.Attrs {
			attr, ok := parseRuntimeAttribute(a)
			if !ok {
				continue
			}
			info := RuntimeAttributeInfo{Name: attr.name, Type: attr.typ, Field: fieldPath}
			if pos, ok := (*sourceNames)(nil).position(attr.pos); ok {
				info.Position = &pos
			}
			out = append(out, info)
		}
	})
	return out, nil
}

type injectRequest struct {
	Filename string            `json:"filename"`
	Content  string            `json:"content"`
	Values   map[string]string `json:"values"`
}

type sourceRequest struct {
	Filename string `json:"filename"`
	Content  string `json:"content"`
}

func (e *Engine) injectRuntimeValues(req injectRequest) (any, error) {
	return InjectRuntimeValues(req.Filename, req.Content, req.Values)
}

func (e *Engine) listRuntimeAttributes(req sourceRequest) (any, error) {
	return ListRuntimeAttributes(req.Filename, req.Content)
}
