package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// captureStdout runs fn with os.Stdout redirected to a pipe and returns what was written.
func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var buf bytes.Buffer
		_, _ = io.Copy(&buf, r)
		done <- buf.String()
	}()
	defer func() { os.Stdout = saved }()
	fn()
	_ = w.Close()
	return <-done
}

func TestNoMethodWritesToStdout(t *testing.T) {
	if got := captureStdout(t, func() { fmt.Fprint(os.Stdout, "probe") }); got != "probe" {
		t.Fatalf("the capture does not work: got %q", got)
	}
	e := NewEngine()
	written := captureStdout(t, func() {
		files := moduleFiles()
		root := handleOf(t, e, "load", loadRequest{Files: files, Package: "main", Tags: []string{"name=app"}, TagVars: map[string]string{"moduleVersion": "1"}})
		cm := handleOf(t, e, "lookup", valueRequest{Handle: root, Path: "cm"})
		for _, m := range []string{"exists", "kind", "validate", "toJSON", "toYAML", "toCUE", "fields", "position"} {
			callRaw(t, e, m, valueRequest{Handle: cm})
		}
		filled := handleOf(t, e, "fill", valueRequest{Handle: cm, Path: "data", JSON: json.RawMessage(`{"k": "v"}`)})
		callRaw(t, e, "unify", valueRequest{Handle: cm, Other: filled})
		callRaw(t, e, "fillValue", valueRequest{Handle: cm, Path: "data", Other: filled})
		callRaw(t, e, "compile", compileRequest{Source: "x: obj.a", Scope: json.RawMessage(`{"obj": {"a": 1}}`)})
		callRaw(t, e, "compile", compileRequest{Source: "x: {"})
		callRaw(t, e, "load", loadRequest{Files: map[string]string{"a.cue": "package a\na: 1\na: 2\n"}, Package: "a"})
		callRaw(t, e, "injectRuntimeValues", injectRequest{Filename: "b.cue", Content: "a: int @timoni(runtime:number:N)", Values: map[string]string{"N": "::error::x"}})
		callRaw(t, e, "listRuntimeAttributes", sourceRequest{Filename: "b.cue", Content: "a: int @timoni(runtime:number:N)"})
		callRaw(t, e, "mergeInstanceValues", instanceValuesRequest{Base: "values: a: 1", Overlays: []string{"{a: 2}"}})
		callRaw(t, e, "version", struct{}{})
		callRaw(t, e, "objectsYAML", objectsYAMLRequest{Objects: []json.RawMessage{json.RawMessage(`{"a": "b"}`)}})
		callRaw(t, e, "free", valueRequest{Handle: cm})
		callRaw(t, e, "toJSON", valueRequest{Handle: cm})
		e.Call("noSuchMethod", "{}")
	})
	if written != "" {
		t.Errorf("the engine wrote to stdout: %q", written)
	}
}

func TestCallErrors(t *testing.T) {
	e := NewEngine()
	ds := callFail(t, e, "noSuchMethod", struct{}{})
	if !strings.Contains(ds[0].Message, `unknown CUE engine method "noSuchMethod"`) || !strings.Contains(ds[0].Message, "toJSON") {
		t.Errorf("unknown method: %+v", ds)
	}
	ds = callFail(t, e, "lookup", map[string]any{"handle": 1, "bogus": true})
	if !strings.Contains(ds[0].Message, "malformed request") {
		t.Errorf("unknown request field: %+v", ds)
	}
	ds = callFail(t, e, "toJSON", valueRequest{Handle: 4242})
	if !strings.Contains(ds[0].Message, "handle 4242 does not exist") {
		t.Errorf("stale handle: %+v", ds)
	}
	var resp testResponse
	if err := json.Unmarshal([]byte(e.Call("lookup", "not json")), &resp); err != nil || resp.Error == nil {
		t.Errorf("a request that is not JSON must give an error response, got %+v (%v)", resp, err)
	}
}

func TestCallRecoversFromPanics(t *testing.T) {
	methods["testPanic"] = func(*Engine, []byte) (any, error) { panic("boom") }
	defer delete(methods, "testPanic")
	ds := callFail(t, NewEngine(), "testPanic", struct{}{})
	if !strings.Contains(ds[0].Message, "internal error in the CUE engine while running testPanic: boom") {
		t.Errorf("got %+v", ds)
	}
}

func TestHandlesAreFreedAndNeverReused(t *testing.T) {
	e := NewEngine()
	a := handleOf(t, e, "compile", compileRequest{Source: "1"})
	call(t, e, "free", valueRequest{Handle: a}, nil)
	b := handleOf(t, e, "compile", compileRequest{Source: "2"})
	if a == b {
		t.Errorf("handle %d was reused", a)
	}
	var stats statsResult
	call(t, e, "stats", struct{}{}, &stats)
	if stats.Handles != 1 {
		t.Errorf("want 1 live handle, got %d", stats.Handles)
	}
}

func TestScrubRemovesVirtualRoots(t *testing.T) {
	for in, want := range map[string]string{
		"cannot find package in /timoni-fleet-virtual/load-12/cue.mod/gen/x": "cannot find package in cue.mod/gen/x",
		"reading dir /timoni-fleet-virtual/load-3: boom":                     "reading dir .: boom",
		"nothing to do here": "nothing to do here",
	} {
		if got := scrub(in); got != want {
			t.Errorf("scrub(%q) = %q, want %q", in, got, want)
		}
	}
	names := newSourceNames()
	root := names.newRoot(map[string]string{"a.cue": "shown/a.cue"})
	if got := names.display(root + "/a.cue"); got != "shown/a.cue" {
		t.Errorf("display name: %q", got)
	}
	if got := names.display(root + "/sub/b.cue"); got != "sub/b.cue" {
		t.Errorf("default display name: %q", got)
	}
	if got := names.display("elsewhere.cue"); got != "elsewhere.cue" {
		t.Errorf("names outside virtual roots stay: %q", got)
	}
}

func TestWrappedCUEErrorsKeepTheirContext(t *testing.T) {
	e := NewEngine()
	ds := callFail(t, e, "mergeInstanceValues", instanceValuesRequest{Base: "other: 1"})
	if len(ds) != 1 || !strings.HasPrefix(ds[0].Message, "loading values from values.cue failed: ") {
		t.Errorf("the wrapper's context is lost: %+v", ds)
	}
}
