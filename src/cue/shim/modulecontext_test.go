package main

import (
	"fmt"
	"strings"
	"testing"
)

// k8sLikeModule is moduleFiles with a main package that varies per instance, as an
// instance build's values do.
func k8sLikeModule(values string) map[string]string {
	files := moduleFiles()
	files["main.cue"] = strings.Replace(files["main.cue"], "data: v: version}", "data: v: version}\n"+values, 1)
	return files
}

func loadReq(files map[string]string, name string) loadRequest {
	return loadRequest{Files: files, Package: "main", Tags: []string{"name=" + name}, TagVars: map[string]string{"moduleVersion": "1.0." + name[len(name)-1:]}}
}

// Loads of one set of cue.mod files reuse the packages built by the first; what they
// export (values, errors, positions) is what a fresh engine exports.
func TestCachedLoadsEqualFreshOnes(t *testing.T) {
	cached := NewEngine()
	inputs := []struct {
		values string
		name   string
	}{
		{`extra: "a"`, "appa"},
		{`extra: "b"`, "appb"},
		{`cm: data: w: "x"`, "appc"},
		{`cm: metadata: name: 5`, "appd"}, // a conflict with the imported schema
		{`cm: kind: "Secret"`, "appe"},
		{`cm: data: w: "y"`, "appf"},
	}
	for round := 0; round < 4; round++ { // past loadsPerContext: a renewed context too
		for _, in := range inputs {
			req := loadReq(k8sLikeModule(in.values), in.name)
			fresh := NewEngine()
			want := fresh.Call("load", mustJSON(t, req))
			got := cached.Call("load", mustJSON(t, req))
			if strings.Contains(want, `"error"`) {
				if got != want {
					t.Errorf("round %d %s: cached load failed differently:\n got %s\nwant %s", round, in.name, got, want)
				}
				continue
			}
			var gh, fh handleResult
			decodeResult(t, got, &gh)
			decodeResult(t, want, &fh)
			for _, m := range []string{"toJSON", "toYAML", "toCUE", "position", "validate"} {
				g := cached.Call(m, mustJSON(t, valueRequest{Handle: gh.Handle, Concrete: true}))
				w := fresh.Call(m, mustJSON(t, valueRequest{Handle: fh.Handle, Concrete: true}))
				if g != w {
					t.Errorf("round %d %s %s: cached %s, fresh %s", round, in.name, m, g, w)
				}
			}
			// Positions in an imported package name its file as the load shows it.
			var ch, fch handleResult
			decodeResult(t, cached.Call("lookup", mustJSON(t, valueRequest{Handle: gh.Handle, Path: "cm.apiVersion"})), &ch)
			decodeResult(t, fresh.Call("lookup", mustJSON(t, valueRequest{Handle: fh.Handle, Path: "cm.apiVersion"})), &fch)
			g := cached.Call("position", mustJSON(t, valueRequest{Handle: ch.Handle}))
			if w := fresh.Call("position", mustJSON(t, valueRequest{Handle: fch.Handle})); g != w || !strings.Contains(g, `"file":"cue.mod/gen/k8s.io/api/core/v1/types.cue"`) {
				t.Errorf("round %d %s: position in the imported package: cached %s, fresh %s", round, in.name, g, w)
			}
			call(t, cached, "free", valueRequest{Handle: gh.Handle}, nil)
		}
	}
	if cached.modules.reused < 3*len(inputs) {
		t.Errorf("only %d of %d loads reused built imports", cached.modules.reused, 4*len(inputs))
	}
	if len(cached.modules.entries) != 1 {
		t.Errorf("one set of cue.mod files must have one context, got %d", len(cached.modules.entries))
	}
}

// A schema violation inside an imported package is reported the same with a reused package.
func TestCachedImportErrorsNameTheImportedFile(t *testing.T) {
	files := moduleFiles()
	files["main.cue"] = strings.Replace(files["main.cue"], `name: lib.#Name & string @tag(name)`, `name: lib.#Name & string @tag(name)
bad: lib.#Name & "Not-Valid"`, 1)
	e := NewEngine()
	first := e.Call("load", mustJSON(t, loadReq(files, "appa")))
	second := e.Call("load", mustJSON(t, loadReq(files, "appa")))
	if first != second || !strings.Contains(first, "invalid value") || !strings.Contains(first, `"file":"cue.mod/pkg/example.com/lib/lib.cue"`) {
		t.Errorf("want the same error naming the imported file twice:\n%s\n%s", first, second)
	}
}

// Another set of cue.mod files (another schema) gets its own context: nothing of the
// first set leaks into it.
func TestDifferentCueModFilesDoNotShareImports(t *testing.T) {
	e := NewEngine()
	a := moduleFiles()
	b := moduleFiles()
	b["cue.mod/pkg/example.com/lib/lib.cue"] = "package lib\n#Name: =~\"^[a-z]+-b$\"\n"
	if got := e.Call("load", mustJSON(t, loadReq(a, "appa"))); strings.Contains(got, "error") {
		t.Fatalf("load a: %s", got)
	}
	got := e.Call("load", mustJSON(t, loadReq(b, "appa")))
	if !strings.Contains(got, "invalid value") {
		t.Errorf("b's own #Name must apply: %s", got)
	}
	if len(e.modules.entries) != 2 {
		t.Errorf("want 2 contexts, got %d", len(e.modules.entries))
	}
	// Display names are part of the key: the same files shown under other names.
	shown := loadReq(a, "appa")
	shown.DisplayNames = map[string]string{"cue.mod/pkg/example.com/lib/lib.cue": "modules/x/cue.mod/pkg/example.com/lib/lib.cue"}
	e.Call("load", mustJSON(t, shown))
	if len(e.modules.entries) != 3 {
		t.Errorf("other display names must get their own context, got %d", len(e.modules.entries))
	}
}

func TestModuleContextsAreBounded(t *testing.T) {
	e := NewEngine()
	for i := 0; i < maxModuleContexts+3; i++ {
		files := moduleFiles()
		files["cue.mod/pkg/example.com/lib/extra.cue"] = fmt.Sprintf("package lib\n#N%d: 1\n", i)
		call(t, e, "load", loadReq(files, "appa"), nil)
	}
	if len(e.modules.entries) != maxModuleContexts {
		t.Errorf("want %d contexts kept, got %d", maxModuleContexts, len(e.modules.entries))
	}
}

// Without packages under cue.mod there is nothing to share: a fresh context per load.
func TestLoadsWithoutCueModPackagesUseFreshContexts(t *testing.T) {
	e := NewEngine()
	files := map[string]string{"cue.mod/module.cue": "module: \"example.com/app\"\nlanguage: version: \"v0.17.1\"\n", "a.cue": "package a\nx: 1\n"}
	call(t, e, "load", loadRequest{Files: files, Package: "a"}, nil)
	if len(e.modules.entries) != 0 {
		t.Errorf("want no shared context, got %d", len(e.modules.entries))
	}
}

// A package of the module itself (outside cue.mod) changes with the module and is
// never reused, even when the cue.mod files are the same.
func TestInModulePackagesAreNotReused(t *testing.T) {
	e := NewEngine()
	files := moduleFiles()
	files["main.cue"] = strings.Replace(files["main.cue"], `"example.com/lib"`, "\"example.com/lib\"\n\t\"example.com/app/tpl\"", 1) + "t: tpl.v\n"
	files["tpl/t.cue"] = "package tpl\nv: 1\n"
	first := e.Call("load", mustJSON(t, loadReq(files, "appa")))
	files["tpl/t.cue"] = "package tpl\nv: 2\n"
	second := e.Call("load", mustJSON(t, loadReq(files, "appa")))
	var h1, h2 handleResult
	decodeResult(t, first, &h1)
	decodeResult(t, second, &h2)
	if !strings.Contains(exportJSON(t, e, h1.Handle), `"t":1`) || !strings.Contains(exportJSON(t, e, h2.Handle), `"t":2`) {
		t.Errorf("the in-module package must be built from each load's files: %s / %s", exportJSON(t, e, h1.Handle), exportJSON(t, e, h2.Handle))
	}
}

// Shared contexts are renewed: many loads of one module keep the heap flat.
func TestCachedLoadsDoNotAccumulate(t *testing.T) {
	e := NewEngine()
	heapAfter := func(loads int) uint64 {
		return heapAfterLoads(t, e, loads, func(i int) loadRequest { return loadReq(k8sLikeModule(fmt.Sprintf("extra: %d", i)), "appa") })
	}
	base := heapAfter(3 * loadsPerContext)
	after := heapAfter(12 * loadsPerContext)
	if after > base+4<<20 {
		t.Errorf("heap grew from %d to %d bytes over %d freed loads", base, after, 12*loadsPerContext)
	}
}

func TestFileSetsCarryTheSharedFiles(t *testing.T) {
	e := NewEngine()
	files := moduleFiles()
	shared := map[string]string{}
	own := map[string]string{}
	for p, c := range files {
		if strings.HasPrefix(p, "cue.mod/") {
			shared[p] = c
		} else {
			own[p] = c
		}
	}
	var put putFilesResult
	call(t, e, "putFiles", putFilesRequest{Files: shared}, &put)
	req := loadReq(own, "appa")
	req.FileSet = put.FileSet
	withSet := exportJSON(t, e, handleOf(t, e, "load", req))
	if want := exportJSON(t, e, handleOf(t, e, "load", loadReq(files, "appa"))); withSet != want {
		t.Errorf("a load with a file set must equal one with all files: %s / %s", withSet, want)
	}
	dup := loadReq(files, "appa")
	dup.FileSet = put.FileSet
	if ds := callFail(t, e, "load", dup); !strings.Contains(ds[0].Message, "is given twice") {
		t.Errorf("a file in both the set and the load must be refused: %+v", ds)
	}
	for i := 0; i < maxFileSets; i++ {
		call(t, e, "putFiles", putFilesRequest{Files: shared}, nil)
	}
	if ds := callFail(t, e, "load", req); !strings.HasPrefix(ds[0].Message, fileSetUnknownPrefix) {
		t.Errorf("a dropped set must be named as such: %+v", ds)
	}
}

// exportAll answers what a load gives: its error response, or the exports of its value.
func exportAll(t *testing.T, e *Engine, req loadRequest) string {
	t.Helper()
	response := e.Call("load", mustJSON(t, req))
	if strings.Contains(response, `"error"`) {
		return response
	}
	var h handleResult
	decodeResult(t, response, &h)
	var out []string
	for _, m := range []string{"toJSON", "toYAML", "validate"} {
		out = append(out, e.Call(m, mustJSON(t, valueRequest{Handle: h.Handle, Concrete: true})))
	}
	call(t, e, "free", valueRequest{Handle: h.Handle}, nil)
	return strings.Join(out, "\n")
}

// warmEqualsCold loads req on an engine that loaded primer before (same cue.mod files)
// and in a fresh engine, and wants the same answers; it returns the warm engine.
func warmEqualsCold(t *testing.T, primer, req loadRequest) *Engine {
	t.Helper()
	warm := NewEngine()
	exportAll(t, warm, primer)
	got := exportAll(t, warm, req)
	if want := exportAll(t, NewEngine(), req); got != want {
		t.Errorf("a warm load differs from a cold one:\n warm %s\n cold %s", got, want)
	}
	return warm
}

// Warm loads take the stand-ins and give what a cold load in a fresh context gives:
// values, an error in the module's own file against a cue.mod schema, an error inside
// a cue.mod file, a load that fails.
func TestWarmLoadsWithStandInsEqualColdOnes(t *testing.T) {
	primer := loadReq(k8sLikeModule(`extra: "a"`), "appa")
	cases := map[string]loadRequest{
		"values":              loadReq(k8sLikeModule(`extra: "b"`), "appb"),
		"module file error":   loadReq(k8sLikeModule(`cm: metadata: name: 5`), "appc"),
		"cue.mod file error":  loadReq(k8sLikeModule(`bad: lib.#Name & "Not-Valid"`), "appd"),
		"tag against schema":  loadReq(k8sLikeModule(`extra: "e"`), "Not-Valid"),
		"syntax error":        loadReq(k8sLikeModule(`extra: {`), "appf"),
		"missing import":      loadReq(k8sLikeModule("x: missing.y"), "appg"),
		"unknown tag":         {Files: k8sLikeModule(""), Package: "main", Tags: []string{"name=appa", "nosuchtag=1"}},
		"incomplete instance": {Files: k8sLikeModule(""), Package: "main"},
	}
	cases["missing import"].Files["main.cue"] = strings.Replace(cases["missing import"].Files["main.cue"], `"example.com/lib"`, "\"example.com/lib\"\n\t\"example.com/missing\"", 1)
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			e := warmEqualsCold(t, primer, req)
			if name == "values" || name == "module file error" || name == "cue.mod file error" || name == "tag against schema" {
				if e.modules.standInLoads != 1 {
					t.Errorf("the warm load must be made with stand-ins (%d)", e.modules.standInLoads)
				}
			}
		})
	}
}

// The errors of a warm load name the files and lines a cold load names, in the
// module's own file and in the cue.mod file of the schema.
func TestWarmLoadErrorPositions(t *testing.T) {
	primer := loadReq(k8sLikeModule(""), "appa")
	warm := NewEngine()
	exportAll(t, warm, primer)
	ds := callFail(t, warm, "load", loadReq(k8sLikeModule(`cm: metadata: name: 5`), "appa"))
	files := map[string]bool{}
	for _, d := range ds {
		for _, p := range d.Positions {
			files[p.File] = true
		}
	}
	if !files["main.cue"] || !files["cue.mod/gen/k8s.io/api/core/v1/types.cue"] {
		t.Errorf("want positions in main.cue and in the schema's file, got %+v", ds)
	}
	if warm.modules.standInLoads != 1 {
		t.Errorf("the warm load must be made with stand-ins (%d)", warm.modules.standInLoads)
	}
}

// Files under @if in cue.mod are selected as in a cold load (CUE v0.17.1 takes every
// tag as unset outside the main module), with the bare tag set and without; files
// with a preamble attribute stay real files for the loader.
func TestWarmLoadsSelectTaggedCueModFilesAsColdOnes(t *testing.T) {
	tagged := func(values string, tags ...string) loadRequest {
		files := k8sLikeModule(values)
		files["cue.mod/pkg/example.com/lib/strict.cue"] = "@if(strict)\npackage lib\n#Name: =~\"^app\"\n"
		files["cue.mod/pkg/example.com/lib/lax.cue"] = "@if(!strict)\npackage lib\n#Name: =~\"^pod\"\n"
		files["strict.cue"] = "@if(strict)\npackage main\nstrict: true\n"
		return loadRequest{Files: files, Package: "main", Tags: append(tags, "name=podinfo"), TagVars: map[string]string{"moduleVersion": "1"}}
	}
	for _, tags := range [][]string{{"strict"}, nil} {
		warm := warmEqualsCold(t, tagged(`extra: 1`, tags...), tagged(`extra: 2`, tags...))
		if got := exportAll(t, warm, tagged(`other: lib.#Name & "app"`, tags...)); !strings.Contains(got, "invalid value") {
			t.Errorf("tags %q: the @if(!strict) file must apply: %s", tags, got)
		}
		if warm.modules.standInLoads != 2 {
			t.Errorf("tags %q: warm loads with tagged cue.mod files must be made with stand-ins (%d)", tags, warm.modules.standInLoads)
		}
	}
}

// A package not built before loads from its real files beside the stand-ins; when it
// shares its directory with a package built before (the same directory under another
// import path), the load is made again without stand-ins. Once built, it is reused
// with stand-ins too.
func TestWarmLoadsOfNewImportPaths(t *testing.T) {
	withImport := func(imports, uses string) map[string]string {
		files := k8sLikeModule(uses)
		files["cue.mod/pkg/example.com/lib/sub/sub.cue"] = "package lib\n#Sub: =~\"-sub$\"\n"
		files["main.cue"] = strings.Replace(files["main.cue"], `"example.com/lib"`, "\"example.com/lib\"\n"+imports, 1)
		return files
	}
	primer := loadReq(withImport("", `extra: 1`), "appa")
	for name, c := range map[string]struct {
		req          loadRequest
		standInLoads int
	}{
		"other directory": {loadReq(withImport(`sublib "example.com/lib/sub:lib"`, `s: sublib.#Sub & "app-sub"`), "appa"), 1},
		"same directory":  {loadReq(withImport(`qlib "example.com/lib:lib"`, `q: qlib.#Name & "q"`), "appa"), 0},
	} {
		t.Run(name, func(t *testing.T) {
			e := warmEqualsCold(t, primer, c.req)
			if e.modules.standInLoads != c.standInLoads {
				t.Errorf("%d loads with stand-ins, want %d", e.modules.standInLoads, c.standInLoads)
			}
			if got, want := exportAll(t, e, c.req), exportAll(t, NewEngine(), c.req); got != want || e.modules.standInLoads != c.standInLoads+1 {
				t.Errorf("the next load (%d with stand-ins): %s, want %s", e.modules.standInLoads, got, want)
			}
		})
	}
}

// A file with a stand-in's name that the stand-ins would not replace turns them off.
func TestStandInNamesNeverHideAFile(t *testing.T) {
	files := k8sLikeModule("")
	files["cue.mod/pkg/example.com/lib/"+standInPrefix+"lib.cue"] = "package other\nx: 1\n"
	e := warmEqualsCold(t, loadReq(files, "appa"), loadReq(files, "appb"))
	if e.modules.standInLoads != 0 {
		t.Errorf("no stand-in may replace a file it does not stand for (%d)", e.modules.standInLoads)
	}
}
