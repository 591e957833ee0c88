package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchModuleDir is a podinfo-shaped module as bench/podinfo-module.ts writes it (the
// Kubernetes schemas in cue.mod/gen); the benchmarks skip when it is not there.
const benchModuleDir = "/tmp/pb/podinfo"

// benchInstanceSchema stands for the timoni.schema.cue an instance build adds
// (src/module/build.ts): the package binds timoni to a schema.
const benchInstanceSchema = `package main

timoni: {
	apiVersion: string & =~"^v1alpha1$"
	instance: {...}
	apply: [string]: [...]
}
`

// benchLoadRequest is the load of one instance build of the module in dir, as
// src/module/build.ts asks for it: the cue.mod files are put in a file set of e once
// (src/cue/file-sets.ts), the load carries the others.
func benchLoadRequest(b *testing.B, e *Engine, dir string) string {
	b.Helper()
	if _, err := os.Stat(filepath.Join(dir, "cue.mod", "module.cue")); err != nil {
		b.Skipf("no podinfo-shaped module at %s (bench/podinfo-module.ts writes one)", dir)
	}
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	files["timoni.schema.cue"] = benchInstanceSchema
	shared := map[string]string{}
	for p, data := range files {
		if strings.HasPrefix(p, "cue.mod/") {
			shared[p] = data
			delete(files, p)
		}
	}
	putRequest, _ := json.Marshal(putFilesRequest{Files: shared})
	var put struct {
		Result putFilesResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(e.Call("putFiles", string(putRequest))), &put); err != nil || put.Result.FileSet == 0 {
		b.Fatalf("putFiles failed: %v", err)
	}
	req, err := json.Marshal(loadRequest{
		Files:      files,
		FileSet:    put.Result.FileSet,
		Dir:        ".",
		ModuleRoot: ".",
		Package:    "main",
		Tags:       []string{"name=podinfo", "namespace=apps"},
		TagVars:    map[string]string{"moduleVersion": "6.7.1", "kubeVersion": "1.36.3"},
		DataFiles:  true,
	})
	if err != nil {
		b.Fatal(err)
	}
	return string(req)
}

// loadAndFree loads and frees one value, failing on an error response.
func loadAndFree(b *testing.B, e *Engine, request string) {
	response := e.Call("load", request)
	var h struct {
		Result handleResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(response), &h); err != nil || h.Result.Handle == 0 {
		b.Fatalf("load failed: %.400s", response)
	}
	e.Call("free", `{"handle":`+jsonNumber(h.Result.Handle)+`}`)
}

func jsonNumber(n uint32) string {
	data, _ := json.Marshal(n)
	return string(data)
}

// A load whose cue.mod packages its context built before: every build of an instance
// after the first of its module (until the context is renewed, which is left out of
// the timing).
func BenchmarkWarmLoad(b *testing.B) {
	e := NewEngine()
	request := benchLoadRequest(b, e, benchModuleDir)
	loadAndFree(b, e, request)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if e.modules.entries[0].loads >= loadsPerContext {
			b.StopTimer()
			loadAndFree(b, e, request) // the renewed context's first, cold load
			b.StartTimer()
		}
		loadAndFree(b, e, request)
	}
}

// The first load of a module in a context, for comparison.
func BenchmarkColdLoad(b *testing.B) {
	e := NewEngine()
	request := benchLoadRequest(b, e, benchModuleDir)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.modules = &moduleContexts{} // every load the first of its context
		loadAndFree(b, e, request)
	}
}
