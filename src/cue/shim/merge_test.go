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
