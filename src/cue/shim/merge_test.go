package main

import (
	"encoding/json"
	"strings"
	"testing"

	"cuelang.org/go/cue"
)

func instanceValues(t *testing.T, base string, overlays ...string) instanceValuesResult {
	t.Helper()
	out, err := NewEngine().mergeInstanceValues(instanceValuesRequest{Base: base, Overlays: overlays})
	if err != nil {
		t.Fatalf("mergeInstanceValues: %v", err)
	}
	return out.(instanceValuesResult)
}

// Timoni hands the bundle's values to the module as CUE text: a default in them stays a
// default (and usually conflicts with the module's own, failing the build as in Timoni).
func TestMergeInstanceValuesKeepsBundleDefaults(t *testing.T) {
	r := instanceValues(t, "package main\nvalues: {\n\treplicas: 1\n\tmessage: \"hi\"\n}\n", "{\n\treplicas: *2 | int\n}")
	want := "package main\nvalues: {\n\treplicas: *2 | int\n\tmessage:  \"hi\"\n}"
	if r.Source != want {
		t.Fatalf("source:\n%s\nwant:\n%s", r.Source, want)
	}
	// The record holds the values struct alone, as GetDefaultValues prints it.
	if wantValues := "{\n\treplicas: *2 | int\n\tmessage:  \"hi\"\n}"; r.Values != wantValues {
		t.Fatalf("values:\n%s\nwant:\n%s", r.Values, wantValues)
	}
}

// Constraints of values.cue survive where the bundle sets nothing; lists pair by index.
func TestMergeInstanceValuesMergesAsTimoni(t *testing.T) {
	r := instanceValues(t, "values: {\n\timage: tag: *\"1.0\" | string\n\tports: [{name: \"http\", port: 80}, {name: \"grpc\", port: 90}]\n}",
		"{\n\tports: [{\n\t\tport: 8080\n\t}]\n}")
	v := newContext().CompileString(r.Source).LookupPath(cue.ParsePath("values"))
	// Field order is CUE's (checked against Timoni at the module level in
	// test/module/config-checksum.test.ts); here only the content.
	var got map[string]any
	if err := v.Decode(&got); err != nil {
		t.Fatal(err)
	}
	gotJSON, _ := json.Marshal(got)
	if string(gotJSON) != `{"image":{"tag":"1.0"},"ports":[{"name":"http","port":8080}]}` {
		t.Fatalf("got %s", gotJSON)
	}
	if !strings.Contains(r.Source, `tag: *"1.0" | string`) {
		t.Fatalf("the module's default should survive as a default:\n%s", r.Source)
	}
}

func TestMergeInstanceValuesErrors(t *testing.T) {
	e := NewEngine()
	if _, err := e.mergeInstanceValues(instanceValuesRequest{Base: "values: {", Overlays: nil}); err == nil || !strings.Contains(err.Error(), "loading values from values.cue failed") {
		t.Fatalf("expected a values.cue error, got %v", err)
	}
	if _, err := e.mergeInstanceValues(instanceValuesRequest{Base: "values: {}", Overlays: []string{"{a: "}}); err == nil || !strings.Contains(err.Error(), "loading bundle values (overlay 1) failed") {
		t.Fatalf("expected an overlay error, got %v", err)
	}
}
