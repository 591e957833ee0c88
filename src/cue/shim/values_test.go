package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestKindsAndFields(t *testing.T) {
	e := NewEngine()
	root := handleOf(t, e, "compile", compileRequest{Source: `
a: *1 | int
b: string
c: number
d: _
e?: int
f!: int
_g: 1
#H: 2
"i-j": [1]
`})
	for path, want := range map[string]string{"a": "int", "b": "incomplete", "c": "number", "d": "top", `"i-j"`: "list", "nope": "bottom"} {
		var kind string
		call(t, e, "kind", valueRequest{Handle: handleOf(t, e, "lookup", valueRequest{Handle: root, Path: path})}, &kind)
		if kind != want {
			t.Errorf("kind of %s: got %s, want %s", path, kind, want)
		}
	}
	var fields []FieldInfo
	call(t, e, "fields", valueRequest{Handle: root, Hidden: true, Definitions: true, Optional: true}, &fields)
	var got []string
	for _, f := range fields {
		flags := ""
		for flag, on := range map[string]bool{"o": f.Optional, "r": f.Required, "h": f.Hidden, "d": f.Definition} {
			if on {
				flags += flag
			}
		}
		got = append(got, f.Label+"/"+f.Name+"/"+flags)
	}
	want := `a/a/ b/b/ c/c/ d/d/ e/e/o f/f/r _g/_g/h #H/#H/d "i-j"/i-j/`
	if strings.Join(got, " ") != want {
		t.Errorf("fields:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestFillNeedsAValueAndChecksIt(t *testing.T) {
	e := NewEngine()
	root := handleOf(t, e, "compile", compileRequest{Source: "a: int"})
	if ds := callFail(t, e, "fill", map[string]any{"handle": root, "path": "a"}); !strings.Contains(ds[0].Message, "no JSON value") {
		t.Errorf("got %+v", ds)
	}
	filled := handleOf(t, e, "fill", valueRequest{Handle: root, Path: "a", JSON: json.RawMessage(`"text"`)})
	ds := callFail(t, e, "toJSON", valueRequest{Handle: filled})
	if ds[0].Path != "a" || !strings.Contains(ds[0].Message, "conflicting values") {
		t.Errorf("got %+v", ds)
	}
}

func TestFreeManyFreesEveryHandle(t *testing.T) {
	e := NewEngine()
	a := handleOf(t, e, "compile", compileRequest{Source: "1"})
	b := handleOf(t, e, "compile", compileRequest{Source: "2"})
	c := handleOf(t, e, "compile", compileRequest{Source: "3"})
	call(t, e, "freeMany", freeManyRequest{Handles: []uint32{a, c, 999}}, nil)
	var stats statsResult
	call(t, e, "stats", statsRequest{}, &stats)
	if stats.Handles != 1 {
		t.Errorf("want 1 live handle, got %d", stats.Handles)
	}
	if got := exportJSON(t, e, b); got != "2" {
		t.Errorf("the handle not freed must stay: %s", got)
	}
}
