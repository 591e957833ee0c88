package main

import (
	"regexp"
	"strings"
	"testing"
)

// binaryTagged matches a value the YAML export writes with the !!binary tag (a
// string that only contains the text is quoted).
var binaryTagged = regexp.MustCompile(`(?m)(^|: |- )!!binary( |$)`)

// hasBytes answers true exactly when the YAML export writes a !!binary value.
func TestHasBytesAgreesWithTheYAMLExport(t *testing.T) {
	cases := []struct {
		name, source string
		want         bool
	}{
		{"bytes in a list in a struct", `spec: containers: [{name: "a"}, {name: "b", env: {data: 'c2VjcmV0', n: 1}}]`, true},
		{"text that reads !!binary", `a: "!!binary"` + "\n" + `b: "!!binary Yg=="` + "\n" + `c: ["!!binary"]` + "\n" + `"!!binary": 1`, false},
		{"plain data", `metadata: {name: "app", labels: {a: "b"}}, spec: {replicas: 2, ratio: 1.5, on: true, none: null, ports: [80, 443]}`, false},
		{"bytes at the top", `'raw'`, true},
		{"a list of bytes", `['a', 'b']`, true},
		{"bytes by default", `x: *'b' | "s"`, true},
		{"string by default", `x: *"s" | 'b'`, false},
		{"bytes computed", `x: 'a' + 'b'`, true},
		{"bytes embedded in a struct", `x: {'b'}`, true},
		{"bytes only where no export looks", `#d: 'a', _h: 'b', o?: 'c', x: 1`, false},
		{"bytes through a reference", `#Secret: {data: [string]: bytes}` + "\n" + `s: #Secret & {data: key: 'v'}`, true},
		{"empty bytes", `x: ''`, true},
		{"a @yaml tag on a string", `x: "s" @yaml(,tag="!!binary")`, true},
		{"a @yaml tag on bytes", `x: 'b' @yaml(,tag="!!str")`, false},
		{"a @yaml tag after bytes", `x: 'b', y: "s" @yaml(,tag="!!str")`, true},
		{"a @yaml attribute without a tag", `x: {a: 'b'} @yaml(,other="1")`, true},
		{"a @yaml tag of its own on bytes", `x: 'b' @yaml(,tag="!custom")`, false},
	}
	e := NewEngine()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := handleOf(t, e, "compile", compileRequest{Source: c.source})
			var got bool
			call(t, e, "hasBytes", valueRequest{Handle: h}, &got)
			var exported string
			call(t, e, "toYAML", valueRequest{Handle: h}, &exported)
			if tagged := binaryTagged.MatchString(exported); got != c.want || got != tagged {
				t.Errorf("hasBytes %v, want %v; the YAML export (tagged: %v):\n%s", got, c.want, tagged, exported)
			}
		})
	}
}

// A value looked up inside another is answered for its own export.
func TestHasBytesOfALookedUpValue(t *testing.T) {
	e := NewEngine()
	root := handleOf(t, e, "compile", compileRequest{Source: `apply: {app: [{kind: "ConfigMap"}], secrets: [{kind: "Secret", data: k: 'v'}]}`})
	for path, want := range map[string]bool{"apply.app": false, "apply.secrets": true, "apply": true, "apply.secrets[0].kind": false} {
		var got bool
		call(t, e, "hasBytes", valueRequest{Handle: handleOf(t, e, "lookup", valueRequest{Handle: root, Path: path})}, &got)
		if got != want {
			t.Errorf("hasBytes of %s: got %v, want %v", path, got, want)
		}
	}
}

// An error value fails as an export does; an incomplete value is answered as it is.
func TestHasBytesOfErrorsAndIncompleteValues(t *testing.T) {
	e := NewEngine()
	root := handleOf(t, e, "compile", compileRequest{Source: `a: int, b: {x: 'b', y: string}, c: int`})
	conflict := handleOf(t, e, "fill", valueRequest{Handle: root, Path: "c", JSON: []byte(`"text"`)})
	if ds := callFail(t, e, "hasBytes", valueRequest{Handle: handleOf(t, e, "lookup", valueRequest{Handle: conflict, Path: "c"})}); !strings.Contains(ds[0].Message, "conflicting values") {
		t.Errorf("want the conflict, got %+v", ds)
	}
	for path, want := range map[string]bool{"a": false, "b": true} {
		var got bool
		call(t, e, "hasBytes", valueRequest{Handle: handleOf(t, e, "lookup", valueRequest{Handle: root, Path: path})}, &got)
		if got != want {
			t.Errorf("hasBytes of %s: got %v, want %v", path, got, want)
		}
	}
}
