package main

import (
	"encoding/json"
	"strings"
	"testing"

	"cuelang.org/go/cue"
)

func mergedValues(t *testing.T, base string, overlays ...string) cue.Value {
	t.Helper()
	e := NewEngine()
	req := mergeValuesRequest{Base: base, BaseFilename: "values.cue"}
	for _, o := range overlays {
		req.Overlays = append(req.Overlays, json.RawMessage(o))
	}
	out, err := e.mergeValues(req)
	if err != nil {
		t.Fatalf("mergeValues: %v", err)
	}
	source := out.(mergeValuesResult).Source
	if !strings.HasPrefix(source, "package main\nvalues: ") {
		t.Fatalf("unexpected source header: %q", source)
	}
	v := newContext().CompileString(source)
	if err := v.Err(); err != nil {
		t.Fatalf("merged source does not compile: %v\n%s", err, source)
	}
	return v.LookupPath(cue.ParsePath("values"))
}

func TestMergeValuesOverlayWinsAndDefaultsSurvive(t *testing.T) {
	v := mergedValues(t, `package main
values: {
	image: {repository: *"ghcr.io/x/app" | string, tag: *"1.0.0" | string}
	replicas: *1 | int
	ui: {color: "blue", message: "hi"}
}`, `{"replicas": 3, "ui": {"message": "hello"}, "extra": {"a": true}}`)
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"image":{"repository":"ghcr.io/x/app","tag":"1.0.0"},"replicas":3,"ui":{"color":"blue","message":"hello"},"extra":{"a":true}}`
	if string(got) != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if tag := v.LookupPath(cue.ParsePath("image.tag")); tag.IsConcrete() {
		if _, isDefault := tag.Default(); !isDefault {
			t.Fatalf("the module's default for image.tag should survive as a default")
		}
	}
}

func TestMergeValuesListsPairByIndex(t *testing.T) {
	v := mergedValues(t, `values: ports: [{name: "http", port: 80}, {name: "grpc", port: 90}]`, `{"ports": [{"port": 8080}]}`)
	got, _ := json.Marshal(v)
	if string(got) != `{"ports":[{"name":"http","port":8080}]}` {
		t.Fatalf("got %s", got)
	}
}

func TestMergeValuesNeedsValuesField(t *testing.T) {
	e := NewEngine()
	if _, err := e.mergeValues(mergeValuesRequest{Base: "other: 1", BaseFilename: "values.cue"}); err == nil || !strings.Contains(err.Error(), `values.cue: no "values" field`) {
		t.Fatalf("expected a missing values error, got %v", err)
	}
}

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
