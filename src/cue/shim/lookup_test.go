package main

import (
	"testing"
)

func TestLookupPaths(t *testing.T) {
	e := NewEngine()
	root := handleOf(t, e, "load", loadRequest{
		Files:   map[string]string{"a.cue": "package a\n_hidden: x: 1\n#Def: y: 2\n\"b-c\": [10, {z: 3}]\nplain: _hidden.x\n"},
		Package: "a",
	})
	for path, want := range map[string]string{
		"_hidden.x":  "1",
		"_hidden":    `{"x":1}`,
		"#Def.y":     "2",
		`"b-c"[1].z`: "3",
		`"b-c"[0]`:   "10",
		"plain":      "1",
		"":           `{"b-c":[10,{"z":3}],"plain":1}`,
	} {
		h := handleOf(t, e, "lookup", valueRequest{Handle: root, Path: path})
		if got := exportJSON(t, e, h); got != want {
			t.Errorf("lookup %q: got %s, want %s", path, got, want)
		}
	}
	var exists bool
	call(t, e, "exists", valueRequest{Handle: handleOf(t, e, "lookup", valueRequest{Handle: root, Path: "_missing.x"})}, &exists)
	if exists {
		t.Error("a missing hidden field must not exist")
	}
	if ds := callFail(t, e, "lookup", valueRequest{Handle: root, Path: "a..b"}); len(ds) == 0 {
		t.Error("a malformed path must fail")
	}
}
