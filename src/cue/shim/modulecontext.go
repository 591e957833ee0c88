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
// same files, all of them under cue.mod/ (a package with any file elsewhere in the
// module changes with the module and is never reused). The key covers everything a
// cue.mod package's build depends on: the cue.mod files (names, contents and display
// names), where the module root is, the bare tags (they select files with @if) and
// the loader options.
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
	// reused counts loads that found their imports already built (for tests).
	reused int
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

// fileNames lists an instance's file names relative to root, one a line.
func fileNames(inst *build.Instance, root string) string {
	names := make([]string, 0, len(inst.BuildFiles))
	for _, f := range inst.BuildFiles {
		names = append(names, strings.TrimPrefix(f.Filename, root+"/"))
	}
	sort.Strings(names)
	return strings.Join(names, "\n")
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
// context built before, where they are the same; it returns the imports that are
// new and cacheable, to remember once built.
func (c *moduleContext) substituteImports(inst *build.Instance, root, moduleRoot string) (fresh []*build.Instance, reused bool) {
	seen := map[*build.Instance]bool{}
	visited := map[*build.Instance]bool{}
	var walk func(*build.Instance)
	walk = func(b *build.Instance) {
		if visited[b] {
			return
		}
		visited[b] = true
		for i, imp := range b.Imports {
			if cached, ok := c.imports[imp.ImportPath]; ok && cacheable(imp, root, moduleRoot, seen) &&
				fileNames(cached.inst, cached.root) == fileNames(imp, root) {
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
	return fresh, reused
}

// remember records the packages built by a load on root for the loads that follow
// (those that built without error).
func (c *moduleContext) remember(built []*build.Instance, root string) {
	for _, b := range built {
		if _, ok := c.imports[b.ImportPath]; !ok && b.Err == nil {
			c.imports[b.ImportPath] = cachedImport{inst: b, root: root}
		}
	}
}

// configure prepares cfg for a load on this context.
func (c *moduleContext) configure(cfg *load.Config, root, moduleRoot string) {
	cfg.ParseFile = c.parseFunc(root, moduleRoot)
}
