package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goYAMLFixtures holds cases.json and the YAML sigs.k8s.io/yaml printed for each case
// (test/cli/fixtures/go-yaml, written by the Go program there).
const goYAMLFixtures = "../../../test/cli/fixtures/go-yaml"

func objectsYAMLOf(t *testing.T, e *Engine, objects ...string) string {
	t.Helper()
	raw := make([]json.RawMessage, len(objects))
	for i, object := range objects {
		raw[i] = json.RawMessage(object)
	}
	var text string
	call(t, e, "objectsYAML", objectsYAMLRequest{Objects: raw}, &text)
	return text
}

func TestObjectsYAMLMatchesTheGoldenFiles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(goYAMLFixtures, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]json.RawMessage
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	// go-yaml orders these keys intransitively, starting from Go's random map order.
	orderRandom := map[string]bool{"ambiguousKeys": true, "keyOrderMixed": true}
	e := NewEngine()
	for name, value := range cases {
		golden, err := os.ReadFile(filepath.Join(goYAMLFixtures, "golden", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		got := objectsYAMLOf(t, e, string(value))
		if orderRandom[name] {
			gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(golden), "\n")
			slices.Sort(gotLines)
			slices.Sort(wantLines)
			if !slices.Equal(gotLines, wantLines) {
				t.Errorf("case %s: lines differ:\n%s\nwant:\n%s", name, got, golden)
			}
		} else if got != string(golden) {
			t.Errorf("case %s:\n%s\nwant:\n%s", name, got, golden)
		}
	}
}

func TestObjectsYAMLSeparatesDocuments(t *testing.T) {
	e := NewEngine()
	if got, want := objectsYAMLOf(t, e, `{"b": 1, "a": 1.5}`, `{"kind": "ConfigMap"}`), "a: 1.5\nb: 1\n---\nkind: ConfigMap\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := objectsYAMLOf(t, e); got != "" {
		t.Errorf("no objects: got %q", got)
	}
}

func TestObjectsYAMLRefusesWhatGoYAMLRefuses(t *testing.T) {
	e := NewEngine()
	diagnostics := callFail(t, e, "objectsYAML", objectsYAMLRequest{Objects: []json.RawMessage{
		json.RawMessage(`{"kind": "Secret", "metadata": {"name": "s", "namespace": "ns"}, "data": {"a": "del\u007f"}}`),
	}})
	if msg := diagnostics[0].Message; !strings.Contains(msg, "control characters are not allowed") || !strings.Contains(msg, "(Secret ns/s)") {
		t.Errorf("message: %s", msg)
	}
	diagnostics = callFail(t, e, "objectsYAML", objectsYAMLRequest{Objects: []json.RawMessage{json.RawMessage(`{"a": 1e400}`)}})
	if msg := diagnostics[0].Message; !strings.Contains(msg, "object 1 of 1: number 1e400") {
		t.Errorf("message: %s", msg)
	}
}
