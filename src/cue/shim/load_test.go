package main

import (
	"strings"
	"testing"
)

// moduleFiles is a small module: cue.mod with a package in each of gen, pkg and usr.
func moduleFiles() map[string]string {
	return map[string]string{
		"cue.mod/module.cue": "module: \"example.com/app\"\nlanguage: version: \"v0.17.1\"\n",
		"cue.mod/gen/k8s.io/api/core/v1/types.cue": `package v1
#ConfigMap: {
	apiVersion: "v1"
	kind: "ConfigMap"
	metadata: name!: string
	data?: [string]: string
}
`,
		"cue.mod/pkg/example.com/lib/lib.cue":      "package lib\n#Name: =~\"^[a-z]+$\"\n",
		"cue.mod/usr/k8s.io/api/core/v1/extra.cue": "package v1\n#ConfigMap: metadata: labels?: [string]: string\n",
		"main.cue": `package main

import (
	corev1 "k8s.io/api/core/v1"
	"example.com/lib"
)

name: lib.#Name & string @tag(name)
version: string @tag(mv, var=moduleVersion)
cm: corev1.#ConfigMap & {metadata: {"name": name, labels: app: name}, data: v: version}
`,
	}
}

func TestLoadModuleWithLocalImportsTagsAndTagVars(t *testing.T) {
	e := NewEngine()
	h := handleOf(t, e, "load", loadRequest{
		Files:   moduleFiles(),
		Package: "main",
		Tags:    []string{"name=podinfo"},
		TagVars: map[string]string{"moduleVersion": "1.2.3"},
	})
	want := `{"name":"podinfo","version":"1.2.3","cm":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"app":"podinfo"},"name":"podinfo"},"data":{"v":"1.2.3"}}}`
	if got := exportJSON(t, e, h); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestLoadSchemaViolationFromAnImportedPackage(t *testing.T) {
	e := NewEngine()
	ds := callFail(t, e, "load", loadRequest{Files: moduleFiles(), Package: "main", Tags: []string{"name=Not-Valid"}})
	if !strings.Contains(ds[0].Message, "invalid value") || ds[0].Path != "name" {
		t.Errorf("want the #Name pattern violation at path name, got %+v", ds)
	}
}

func TestLoadNeverUsesARegistry(t *testing.T) {
	files := moduleFiles()
	files["cue.mod/module.cue"] = `module: "example.com/app"
language: version: "v0.17.1"
deps: "example.com/remote@v0": v: "v0.1.0"
`
	files["main.cue"] = "package main\nimport \"example.com/remote\"\nx: remote.y\n"
	ds := callFail(t, NewEngine(), "load", loadRequest{Files: files, Package: "main"})
	all := ""
	for _, d := range ds {
		all += d.String() + "\n"
	}
	if !strings.Contains(all, "registries are not used") {
		t.Errorf("want the registry refusal, got:\n%s", all)
	}
}

func TestLoadImportWithoutLocalPackageFails(t *testing.T) {
	files := moduleFiles()
	files["main.cue"] = "package main\nimport \"example.com/missing\"\nx: missing.y\n"
	ds := callFail(t, NewEngine(), "load", loadRequest{Files: files, Package: "main"})
	if len(ds) == 0 || !strings.Contains(ds[0].String(), "example.com/missing") {
		t.Errorf("want an error naming the missing import, got %+v", ds)
	}
}

func TestLoadErrorPositionsUseDisplayNames(t *testing.T) {
	ds := callFail(t, NewEngine(), "load", loadRequest{
		Files:        map[string]string{"a.cue": "package x\na: 1\n", "sub/../b.cue": "package x\n\na: 2\n"},
		DisplayNames: map[string]string{"a.cue": "/home/user/bundle/a.cue"},
	})
	if len(ds) != 1 || ds[0].Path != "a" || !strings.Contains(ds[0].Message, "conflicting values") {
		t.Fatalf("want one conflict at a, got %+v", ds)
	}
	got := map[string]int{}
	for _, p := range ds[0].Positions {
		got[p.File] = p.Line
	}
	if got["/home/user/bundle/a.cue"] != 2 || got["b.cue"] != 3 {
		t.Errorf("want positions /home/user/bundle/a.cue:2 and b.cue:3, got %+v", ds[0].Positions)
	}
}

func TestLoadSyntaxError(t *testing.T) {
	ds := callFail(t, NewEngine(), "load", loadRequest{Files: map[string]string{"bad.cue": "package x\n\na: {\n"}})
	if len(ds) == 0 || len(ds[0].Positions) == 0 || ds[0].Positions[0].File != "bad.cue" || ds[0].Positions[0].Line != 3 {
		t.Errorf("want a syntax error at bad.cue:3, got %+v", ds)
	}
}

func TestLoadArgsInAnonymousPackage(t *testing.T) {
	e := NewEngine()
	h := handleOf(t, e, "load", loadRequest{
		Files: map[string]string{
			"bundles/b.cue":       "bundle: name: \"apps\"\n_shared: 1\n",
			"bundles/runtime.cue": "runtime: name: \"fleet\"\n_shared: 1\n",
			"bundles/ignored.cue": "bundle: name: \"other\"\n",
		},
		Dir:     "bundles",
		Args:    []string{"b.cue", "runtime.cue"},
		Package: "_",
	})
	want := `{"bundle":{"name":"apps"},"runtime":{"name":"fleet"}}`
	if got := exportJSON(t, e, h); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Data files are loaded as orphaned files, which cue.Context.BuildInstance leaves
// out (as in Timoni, which converts bundle JSON/YAML to CUE before loading).
func TestLoadDataFilesAreNotPartOfTheValue(t *testing.T) {
	e := NewEngine()
	h := handleOf(t, e, "load", loadRequest{
		Files:     map[string]string{"a.cue": "package main\na: 1\n", "values.json": `{"b": 2}`},
		Package:   "main",
		DataFiles: true,
	})
	if got := exportJSON(t, e, h); got != `{"a":1}` {
		t.Errorf("got %s", got)
	}
}

func TestLoadBinaryFilesAndBadBase64(t *testing.T) {
	e := NewEngine()
	h := handleOf(t, e, "load", loadRequest{BinaryFiles: map[string]string{"a.cue": "YTogMQo="}, Package: "_"}) // "a: 1\n"
	if got := exportJSON(t, e, h); got != `{"a":1}` {
		t.Errorf("got %s", got)
	}
	ds := callFail(t, e, "load", loadRequest{BinaryFiles: map[string]string{"a.cue": "%%%"}})
	if !strings.Contains(ds[0].Message, `binary file "a.cue"`) {
		t.Errorf("got %+v", ds)
	}
}

func TestVirtualPaths(t *testing.T) {
	for in, want := range map[string]string{"a.cue": "a.cue", "./a.cue": "a.cue", "/a.cue": "a.cue", "x/../a.cue": "a.cue", ".": ".", "": "."} {
		got, err := cleanVirtualPath(in)
		if err != nil || got != want {
			t.Errorf("cleanVirtualPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"../a.cue", "x/../../a.cue", `a\b.cue`} {
		if _, err := cleanVirtualPath(bad); err == nil {
			t.Errorf("cleanVirtualPath(%q) should fail", bad)
		}
	}
	if _, err := NewEngine().virtualFiles(loadRequest{Files: map[string]string{"a": "", "a/b.cue": ""}}); err == nil {
		t.Error("a path that is both a file and a directory must be rejected")
	}
	if _, err := NewEngine().virtualFiles(loadRequest{Files: map[string]string{"a.cue": ""}, BinaryFiles: map[string]string{"./a.cue": ""}}); err == nil {
		t.Error("a file given twice must be rejected")
	}
}

func TestModuleRootIsFoundAmongTheFiles(t *testing.T) {
	files := map[string][]byte{"mod/cue.mod/module.cue": nil, "mod/pkg/a.cue": nil, "loose/b.cue": nil}
	for dir, want := range map[string]string{"mod/pkg": "mod", "mod": "mod", "loose": ".", ".": "."} {
		if got := findModuleRoot(files, dir); got != want {
			t.Errorf("findModuleRoot(%q) = %q, want %q", dir, got, want)
		}
	}
}
