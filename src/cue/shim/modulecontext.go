package main

import (
	"crypto/sha256"
	"encoding/binary"
	"path"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/parser"
)

// Compiled imports reused. A Timoni module imports large packages from cue.mod
// (cue.mod/gen holds the Kubernetes schemas), and every instance build would parse
// and compile them again: for a module with the Kubernetes schemas, parsing them is
// most of a load. The engine keeps a CUE context per distinct set of cue.mod files
// (moduleContext), and in it the parsed cue.mod files and the built import packages,
// which every later load of the same set reuses.
//
// CUE reuses a built package by its *build.Instance within one context; each
// load.Instances call makes new ones, so the load's imports are swapped for the ones
// built before (substituteImports) when they are the same package: same import path,
// every file under cue.mod/ (a package with any file elsewhere in the module changes
// with the module and is never reused). The key covers everything a cue.mod
// package's build depends on: the cue.mod files (names, contents and display names),
// where the module root is, the bare tags (they select files with @if) and the loader
// options; so within one context an import path names the same files in every load.
//
// Stand-ins. Even with the parses cached, the loader would still read every file of
// a package built before, scan its imports and walk into them, only for the package
// to be swapped out (about 40% of a warm load with the Kubernetes schemas). A load on
// a context that built packages before gets, in place of their files, one stand-in
// file per directory and package holding only the package clause (standInOverlay),
// so the loader finds the same packages by the same import paths and stops there;
// each is then swapped for the package built before. Files with attributes before
// their package clause (@if, @ignore, @extern) stay as they are, so that the loader
// decides on them as always. The stand-ins must never reach an evaluation or an
// error: a load with stand-ins that is not one clean instance, or keeps a stand-in
// anywhere after the swap (an import path not built before whose files share a
// directory with a package built before, say), is made again with the real files,
// exactly as the first load of the context.
//
// Bounded: at most maxModuleContexts sets, the least recently used one dropped; a
// context is renewed after loadsPerContext loads, since a CUE context keeps
// everything built in it (each load's own package included) for its whole life.

const (
	maxModuleContexts = 4
	loadsPerContext   = 16
)

// moduleContext is the CUE context of one set of cue.mod files.
type moduleContext struct {
	key     string
	ctx     *cue.Context
	loads   int
	mu      sync.Mutex
	syntax  map[syntaxKey]parsedFile
	imports map[string]cachedImport
	// standIns stands in for the files of imports; nil when not made yet for them.
	standIns *standInPlan
}

// standInPlan is what a load's cue.mod files become for the loader (paths relative to
// the virtual root): the files of packages built before are dropped, and stand-ins
// added in their directories.
type standInPlan struct {
	dropped map[string]bool
	added   map[string]string
}

// cachedImport is a package built in the context, with the virtual root of the load
// that built it (its file names are under that root; the display names of every
// root with this key are the same).
type cachedImport struct {
	inst *build.Instance
	root string
}

type syntaxKey struct {
	rel string
	cfg parser.Config
}

type parsedFile struct {
	file *ast.File
	err  error
}

// moduleContexts holds the contexts, most recently used last.
type moduleContexts struct {
	entries []*moduleContext
	// reused counts loads that found their imports already built, standInLoads those
	// of them that the loader made with stand-ins (for tests).
	reused       int
	standInLoads int
}

// moduleKey identifies a load's set of cue.mod files and the options that shape
// how its packages build; "" when the load has no cue.mod package files, which
// then gets a fresh context as before.
func moduleKey(files map[string][]byte, moduleRoot string, req loadRequest, display map[string]string) string {
	prefix := path.Join(moduleRoot, "cue.mod") + "/"
	if moduleRoot == "." {
		prefix = "cue.mod/"
	}
	var names []string
	packages := false
	for p := range files {
		if strings.HasPrefix(p, prefix) {
			names = append(names, p)
			if strings.HasSuffix(p, ".cue") && p != prefix+"module.cue" {
				packages = true
			}
		}
	}
	if !packages {
		return ""
	}
	sort.Strings(names)
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(moduleRoot)
	var bare []string
	for _, t := range req.Tags {
		if !strings.ContainsRune(t, '=') {
			bare = append(bare, t)
		}
	}
	sort.Strings(bare)
	field(strings.Join(bare, "\x00"))
	acceptLegacy := req.AcceptLegacyModules == nil || *req.AcceptLegacyModules
	field(map[bool]string{true: "data", false: "nodata"}[req.DataFiles])
	field(map[bool]string{true: "legacy", false: "nolegacy"}[acceptLegacy])
	for _, p := range names {
		field(p)
		field(string(files[p]))
		field(display[p])
	}
	return string(h.Sum(nil))
}

// get returns the context for key, new or renewed when it served loadsPerContext
// loads, and marks it most recently used.
func (m *moduleContexts) get(key string) *moduleContext {
	for i, c := range m.entries {
		if c.key != key {
			continue
		}
		m.entries = append(m.entries[:i], m.entries[i+1:]...)
		if c.loads >= loadsPerContext {
			c = newModuleContext(key)
		}
		m.entries = append(m.entries, c)
		return c
	}
	c := newModuleContext(key)
	if len(m.entries) >= maxModuleContexts {
		m.entries = m.entries[1:]
	}
	m.entries = append(m.entries, c)
	return c
}

func newModuleContext(key string) *moduleContext {
	return &moduleContext{key: key, ctx: newContext(), syntax: map[syntaxKey]parsedFile{}, imports: map[string]cachedImport{}}
}

// relative returns a file name relative to its virtual root, and whether it is
// under the cue.mod folder of the module root.
func relative(root, moduleRoot, filename string) (string, bool) {
	rel, ok := strings.CutPrefix(filename, root+"/")
	if !ok {
		return "", false
	}
	prefix := "cue.mod/"
	if moduleRoot != "." {
		prefix = moduleRoot + "/cue.mod/"
	}
	return rel, strings.HasPrefix(rel, prefix)
}

// parseFunc is the loader's ParseFile for a load on root: cue.mod files are parsed
// once per context (their positions keep the file names of the first load's root).
func (c *moduleContext) parseFunc(root, moduleRoot string) func(string, any, parser.Config) (*ast.File, error) {
	return func(name string, src any, cfg parser.Config) (*ast.File, error) {
		rel, inCueMod := relative(root, moduleRoot, name)
		if !inCueMod {
			return parser.ParseFile(name, src, cfg)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		key := syntaxKey{rel: rel, cfg: cfg}
		if parsed, ok := c.syntax[key]; ok {
			return parsed.file, parsed.err
		}
		file, err := parser.ParseFile(name, src, cfg)
		c.syntax[key] = parsedFile{file: file, err: err}
		return file, err
	}
}

// cacheable reports whether every file of inst is under cue.mod, and so are those
// of the packages it imports.
func cacheable(inst *build.Instance, root, moduleRoot string, seen map[*build.Instance]bool) bool {
	if ok, done := seen[inst]; done {
		return ok
	}
	seen[inst] = false
	if inst.Err != nil || len(inst.BuildFiles) == 0 {
		return false
	}
	for _, f := range inst.BuildFiles {
		if _, inCueMod := relative(root, moduleRoot, f.Filename); !inCueMod {
			return false
		}
	}
	for _, imp := range inst.Imports {
		if !cacheable(imp, root, moduleRoot, seen) {
			return false
		}
	}
	seen[inst] = true
	return true
}

// substituteImports swaps the imports of inst (transitively) for the packages this
// context built before under the same import path, when all their files are under
// cue.mod (the key makes them the same files); it returns the imports that are new
// and cacheable, to remember once built, and whether any of the instances it keeps
// has a stand-in among its files (then the load must be made with the real files).
func (c *moduleContext) substituteImports(inst *build.Instance, root, moduleRoot string, standIns map[string]bool) (fresh []*build.Instance, reused, keepsStandIn bool) {
	seen := map[*build.Instance]bool{}
	visited := map[*build.Instance]bool{}
	var walk func(*build.Instance)
	walk = func(b *build.Instance) {
		if visited[b] {
			return
		}
		visited[b] = true
		for _, f := range b.BuildFiles {
			if standIns[f.Filename] {
				keepsStandIn = true
			}
		}
		for i, imp := range b.Imports {
			if cached, ok := c.imports[imp.ImportPath]; ok && cacheable(imp, root, moduleRoot, seen) {
				b.Imports[i] = cached.inst
				reused = true
				continue
			}
			walk(imp)
			if cacheable(imp, root, moduleRoot, seen) {
				fresh = append(fresh, imp)
			}
		}
	}
	walk(inst)
	return fresh, reused, keepsStandIn
}

// remember records the packages built by a load on root for the loads that follow
// (those that built without error).
func (c *moduleContext) remember(built []*build.Instance, root string) {
	for _, b := range built {
		if _, ok := c.imports[b.ImportPath]; !ok && b.Err == nil {
			c.imports[b.ImportPath] = cachedImport{inst: b, root: root}
			c.standIns = nil
		}
	}
}

// standInPrefix starts the name of a stand-in file; the package name and ".cue"
// follow. Loaders skip names that start with "_" or "."; this one they read.
const standInPrefix = "timoni-fleet-stand-in."

// hasPreambleAttributes reports whether f has attributes before its package clause:
// build attributes (@if, @ignore) and file attributes such as @extern(embed), which
// the loader must see for itself.
func hasPreambleAttributes(f *ast.File) bool {
	for _, d := range f.Decls {
		switch d.(type) {
		case *ast.Attribute:
			return true
		case *ast.Package:
			return false
		}
	}
	return false
}

// plan returns the stand-ins for the packages built in this context so far.
func (c *moduleContext) plan() *standInPlan {
	if c.standIns != nil {
		return c.standIns
	}
	p := &standInPlan{dropped: map[string]bool{}, added: map[string]string{}}
	for _, cached := range c.imports {
		for i, f := range cached.inst.BuildFiles {
			syntax := cached.inst.Files[i]
			if hasPreambleAttributes(syntax) {
				continue
			}
			rel := strings.TrimPrefix(f.Filename, cached.root+"/")
			pkg := syntax.PackageName()
			p.dropped[rel] = true
			p.added[path.Join(path.Dir(rel), standInPrefix+pkg+".cue")] = "package " + pkg + "\n"
		}
	}
	c.standIns = p
	return p
}

// standInOverlay returns the overlay of a load on root with stand-ins for the
// packages built before, and the stand-ins' file names; nil when there are none to
// make, or a file of the load has a stand-in's name.
func (c *moduleContext) standInOverlay(overlay map[string]load.Source, root string) (map[string]load.Source, map[string]bool) {
	if len(c.imports) == 0 {
		return nil, nil
	}
	p := c.plan()
	withStandIns := make(map[string]load.Source, len(overlay)-len(p.dropped)+len(p.added))
	for name, src := range overlay {
		if !p.dropped[strings.TrimPrefix(name, root+"/")] {
			withStandIns[name] = src
		}
	}
	names := make(map[string]bool, len(p.added))
	for rel, text := range p.added {
		name := path.Join(root, rel)
		if _, clash := withStandIns[name]; clash {
			return nil, nil
		}
		withStandIns[name] = load.FromString(text)
		names[name] = true
	}
	return withStandIns, names
}

// loadedCleanly reports whether inst and every package it imports loaded without an
// error.
func loadedCleanly(inst *build.Instance, seen map[*build.Instance]bool) bool {
	if seen[inst] {
		return true
	}
	seen[inst] = true
	if inst.Err != nil || inst.Incomplete {
		return false
	}
	for _, imp := range inst.Imports {
		if !loadedCleanly(imp, seen) {
			return false
		}
	}
	return true
}

// loadWithStandIns loads with stand-ins for the packages built before and swaps them
// in; ok is false when the load must be made with the real files (no packages built
// yet, or anything but one clean instance without a stand-in left).
func (c *moduleContext) loadWithStandIns(args []string, cfg *load.Config, root, moduleRoot string) (inst *build.Instance, fresh []*build.Instance, reused, ok bool) {
	overlay, standIns := c.standInOverlay(cfg.Overlay, root)
	if overlay == nil {
		return nil, nil, false, false
	}
	withStandIns := *cfg
	withStandIns.Overlay = overlay
	instances := load.Instances(args, &withStandIns)
	if len(instances) != 1 || !loadedCleanly(instances[0], map[*build.Instance]bool{}) {
		return nil, nil, false, false
	}
	fresh, reused, keepsStandIn := c.substituteImports(instances[0], root, moduleRoot, standIns)
	if keepsStandIn {
		return nil, nil, false, false
	}
	return instances[0], fresh, reused, true
}

// configure prepares cfg for a load on this context.
func (c *moduleContext) configure(cfg *load.Config, root, moduleRoot string) {
	cfg.ParseFile = c.parseFunc(root, moduleRoot)
}
