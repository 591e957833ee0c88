package main

import (
	"strings"
	"testing"

	"cuelang.org/go/cue/cuecontext"
)

// evalJSON evaluates CUE text and returns its JSON export.
func evalJSON(t *testing.T, src string) string {
	t.Helper()
	v := cuecontext.New().CompileString(src)
	data, err := v.MarshalJSON()
	if err != nil {
		t.Fatalf("evaluating %q: %v", src, err)
	}
	return string(data)
}

func TestInjectTypes(t *testing.T) {
	src := `host: *"localhost" | string @timoni(runtime:string:HOST)
port: *80 | int @timoni(runtime:number:PORT)
ratio: number @timoni(runtime:number:RATIO)
enabled: *false | bool @timoni(runtime:bool:ENABLED)
`
	out, err := InjectRuntimeValues("bundle.cue", src, map[string]string{
		"HOST": "example.com", "PORT": "8080", "RATIO": "0.5", "ENABLED": "true",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"example.com" @timoni(runtime:string:HOST)`) {
		t.Errorf("the attribute should stay on the injected field:\n%s", out)
	}
	want := `{"host":"example.com","port":8080,"ratio":0.5,"enabled":true}`
	if got := evalJSON(t, out); got != want {
		t.Errorf("injected values evaluate to %s, want %s", got, want)
	}
}

func TestInjectNestedAndHiddenFields(t *testing.T) {
	src := `_cluster: name: string @timoni(runtime:string:TIMONI_CLUSTER_NAME)
bundle: instances: app: values: {
	cluster: _cluster.name
	replicas: int @timoni(runtime:number:REPLICAS)
	deep: a: b: c: string @timoni(runtime:string:DEEP)
}
`
	out, err := InjectRuntimeValues("bundle.cue", src, map[string]string{
		"TIMONI_CLUSTER_NAME": "eu-1", "REPLICAS": "3", "DEEP": "down",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"bundle":{"instances":{"app":{"values":{"cluster":"eu-1","replicas":3,"deep":{"a":{"b":{"c":"down"}}}}}}}}`
	if got := evalJSON(t, out); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestInjectLeavesFieldsWithoutValue(t *testing.T) {
	src := `host: *"localhost" | string @timoni(runtime:string:HOST)
port: int @timoni(runtime:number:PORT)
`
	out, err := InjectRuntimeValues("bundle.cue", src, map[string]string{"OTHER": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `host: *"localhost" | string`) || !strings.Contains(out, "port: int") {
		t.Errorf("fields without a value must stay as written:\n%s", out)
	}
	v := cuecontext.New().CompileString(out)
	if got, _ := v.LookupPath(cueParse("host")).String(); got != "localhost" {
		t.Errorf("the default should survive, got %q", got)
	}
}

func TestInjectStringsAreLiteral(t *testing.T) {
	tricky := "multi\nline \"quoted\" \\(interpolation) \t tab\r\n"
	out, err := InjectRuntimeValues("b.cue", `s: string @timoni(runtime:string:S)`, map[string]string{"S": tricky})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cuecontext.New().CompileString(out).LookupPath(cueParse("s")).String()
	if err != nil {
		t.Fatalf("evaluating %s: %v", out, err)
	}
	if got != tricky {
		t.Errorf("string round trip: got %q, want %q", got, tricky)
	}
}

func TestInjectNumberForms(t *testing.T) {
	for value, want := range map[string]string{"-5": "-5", "1Ki": "1024", "0x10": "16", "1_000": "1000", "1e3": "1E+3"} {
		out, err := InjectRuntimeValues("b.cue", `n: number @timoni(runtime:number:N)`, map[string]string{"N": value})
		if err != nil {
			t.Errorf("%s: %v", value, err)
			continue
		}
		if got := evalJSON(t, out); got != `{"n":`+want+`}` {
			t.Errorf("%s: got %s, want n = %s", value, got, want)
		}
	}
}

func TestInjectErrorsNeverShowTheValue(t *testing.T) {
	const secret = "s3cr3t-Value"
	src := `a: b: int @timoni(runtime:number:NUM)
c: bool @timoni(runtime:bool:FLAG)
d: _ @timoni(runtime:list:LIST)
`
	cases := map[string]struct {
		values map[string]string
		want   string
		line   int
		path   string
	}{
		"bad number":   {map[string]string{"NUM": secret}, "value must be a CUE number", 1, "a.b"},
		"number expr":  {map[string]string{"NUM": "1 + 2"}, "value must be a CUE number", 1, "a.b"},
		"bad bool":     {map[string]string{"FLAG": secret}, "value must be 'true' or 'false'", 2, "c"},
		"bool case":    {map[string]string{"FLAG": "True"}, "value must be 'true' or 'false'", 2, "c"},
		"unknown type": {map[string]string{"LIST": secret}, "unknown type 'list'", 3, "d"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := InjectRuntimeValues("bundle.cue", src, tc.values)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, v := range tc.values {
				if strings.Contains(err.Error(), v) {
					t.Errorf("error shows the value: %v", err)
				}
			}
			ds := (*sourceNames)(nil).diagnostics(err)
			if len(ds) != 1 {
				t.Fatalf("want one diagnostic, got %+v", ds)
			}
			d := ds[0]
			if !strings.Contains(d.Message, tc.want) || !strings.Contains(d.Message, "@timoni(runtime:") {
				t.Errorf("message %q should name the attribute and say %q", d.Message, tc.want)
			}
			if d.Path != tc.path || len(d.Positions) != 1 || d.Positions[0].File != "bundle.cue" || d.Positions[0].Line != tc.line {
				t.Errorf("diagnostic %+v should point at bundle.cue line %d, path %s", d, tc.line, tc.path)
			}
		})
	}
}

func TestInjectUnknownTypeWithoutValueIsAccepted(t *testing.T) {
	// Timoni checks the type only when it injects a value.
	if _, err := InjectRuntimeValues("b.cue", `d: _ @timoni(runtime:list:LIST)`, nil); err != nil {
		t.Errorf("an attribute without a value should be left alone: %v", err)
	}
}

func TestInjectUsesFirstTimoniAttribute(t *testing.T) {
	src := `a: string @other(x) @timoni(runtime:string:FIRST) @timoni(runtime:string:SECOND)
b: string @timoni(not-runtime) @timoni(runtime:string:FIRST)
`
	out, err := InjectRuntimeValues("b.cue", src, map[string]string{"FIRST": "1", "SECOND": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `a: "1"`) {
		t.Errorf("the first @timoni attribute governs a:\n%s", out)
	}
	if !strings.Contains(out, "b: string") {
		t.Errorf("b's first @timoni attribute is not a runtime one, so b stays:\n%s", out)
	}
}

func TestInjectDataFiles(t *testing.T) {
	for name, content := range map[string]string{
		"values.yaml": "bundle:\n  name: apps\n  list: [1, 2]\n",
		"values.yml":  "bundle: {name: apps, list: [1, 2]}\n",
		"values.json": `{"bundle": {"name": "apps", "list": [1, 2]}}`,
	} {
		out, err := InjectRuntimeValues(name, content, map[string]string{"X": "y"})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := evalJSON(t, out); got != `{"bundle":{"name":"apps","list":[1,2]}}` {
			t.Errorf("%s: CUE text %q evaluates to %s", name, out, got)
		}
	}
	if _, err := InjectRuntimeValues("values.toml", "a = 1", nil); err == nil || !strings.Contains(err.Error(), "unsupported file extension") {
		t.Errorf("want an unsupported extension error, got %v", err)
	}
}

func TestInjectSyntaxErrorHasPosition(t *testing.T) {
	_, err := InjectRuntimeValues("broken.cue", "a: {\nb: 1\n", nil)
	ds := (*sourceNames)(nil).diagnostics(err)
	if len(ds) == 0 || len(ds[0].Positions) == 0 || ds[0].Positions[0].File != "broken.cue" {
		t.Fatalf("want a positioned diagnostic in broken.cue, got %+v (%v)", ds, err)
	}
}

func TestListRuntimeAttributes(t *testing.T) {
	src := `a: "b-c": int @timoni(runtime:number:N)
_h: bool @timoni(runtime:bool:B) @timoni(runtime:string:S)
x: 1 @timoni(other:string:Z)
`
	got, err := ListRuntimeAttributes("f.cue", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []RuntimeAttributeInfo{
		{Name: "N", Type: "number", Field: `a."b-c"`, Position: &Position{File: "f.cue", Line: 1, Column: 15}},
		{Name: "B", Type: "bool", Field: "_h", Position: &Position{File: "f.cue", Line: 2, Column: 10}},
		{Name: "S", Type: "string", Field: "_h", Position: &Position{File: "f.cue", Line: 2, Column: 34}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d attributes, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Type != want[i].Type || got[i].Field != want[i].Field || *got[i].Position != *want[i].Position {
			t.Errorf("attribute %d: got %+v at %+v, want %+v at %+v", i, got[i], *got[i].Position, want[i], *want[i].Position)
		}
	}
}
