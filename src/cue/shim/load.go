package main

import (
	"fmt"
	"path"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/load"
)

// loadRequest mirrors LoadOptions of src/cue/types.ts. Text files come in Files,
// binary ones base64-encoded in BinaryFiles; all paths are posix paths relative
// to the virtual root.
type loadRequest struct {
	Files               map[string]string `json:"files"`
	BinaryFiles         map[string]string `json:"binaryFiles"`
	Dir                 string            `json:"dir"`
	ModuleRoot          string            `json:"moduleRoot"`
	Args                []string          `json:"args"`
	Package             string            `json:"package"`
	Tags                []string          `json:"tags"`
	TagVars             map[string]string `json:"tagVars"`
	DataFiles           bool              `json:"dataFiles"`
	AcceptLegacyModules *bool             `json:"acceptLegacyModules"`
	DisplayNames        map[string]string `json:"displayNames"`
	// FileSet names files sent before (filesets.go); 0 for none.
	FileSet uint32 `json:"fileSet"`
}

// cleanVirtualPath turns a caller's posix path relative to the virtual root into
// a clean relative path ("." for the root). Paths that leave the root are rejected.
func cleanVirtualPath(p string) (string, error) {
	if strings.Contains(p, "\\") {
		return "", fmt.Errorf("virtual path %q: use forward slashes", p)
	}
	cleaned := path.Clean(p)
	if cleaned == ".." || strings.HasPrefix(cleaned, "../") {
		return "", fmt.Errorf("virtual path %q leaves the root of the given files", p)
	}
	cleaned = strings.TrimPrefix(cleaned, "/")
	if cleaned == "" {
		cleaned = "."
	}
	return cleaned, nil
}

// addVirtualFile adds one file under its cleaned name.
func addVirtualFile(files map[string][]byte, name string, data []byte) error {
	p, err := cleanVirtualPath(name)
	if err != nil {
		return err
	}
	if p == "." {
		return fmt.Errorf("virtual path %q names the root directory, not a file", name)
	}
	if _, dup := files[p]; dup {
		return fmt.Errorf("virtual path %q is given twice", p)
	}
	files[p] = data
	return nil
}

// virtualFiles decodes and cleans the request's files, with those of its file set.
func (e *Engine) virtualFiles(req loadRequest) (map[string][]byte, error) {
	own, err := decodeFiles(req.Files, req.BinaryFiles)
	if err != nil {
		return nil, err
	}
	files := own
	if req.FileSet != 0 {
		set, err := e.fileSets.get(req.FileSet)
		if err != nil {
			return nil, err
		}
		files = make(map[string][]byte, len(set)+len(own))
		for p, data := range set {
			files[p] = data
		}
		for p, data := range own {
			if _, dup := files[p]; dup {
				return nil, fmt.Errorf("virtual path %q is given twice", p)
			}
			files[p] = data
		}
	}
	for p := range files {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if _, clash := files[dir]; clash {
				return nil, fmt.Errorf("virtual path %q is both a file and a directory", dir)
			}
		}
	}
	return files, nil
}

// findModuleRoot looks for cue.mod from dir up to the root among the given files,
// so that the loader never searches the host above the virtual root.
func findModuleRoot(files map[string][]byte, dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if _, ok := files[path.Join(d, "cue.mod", "module.cue")]; ok {
			return d
		}
		if _, ok := files[path.Join(d, "cue.mod")]; ok { // legacy cue.mod file
			return d
		}
		if d == "." {
			return "."
		}
	}
}

// loadSetup is a load's configuration and what the module contexts need of it.
type loadSetup struct {
	cfg        *load.Config
	root       string
	moduleRoot string
	// moduleKey names the load's set of cue.mod files ("" when it has no packages there).
	moduleKey string
}

// loadSetup builds the loader configuration: everything is read from the given
// files (an overlay on a virtual root), and no registry is used.
func (e *Engine) loadSetup(req loadRequest) (*loadSetup, error) {
	files, err := e.virtualFiles(req)
	if err != nil {
		return nil, err
	}
	dir, err := cleanVirtualPath(orDot(req.Dir))
	if err != nil {
		return nil, fmt.Errorf("dir: %w", err)
	}
	moduleRoot := findModuleRoot(files, dir)
	if req.ModuleRoot != "" {
		if moduleRoot, err = cleanVirtualPath(req.ModuleRoot); err != nil {
			return nil, fmt.Errorf("moduleRoot: %w", err)
		}
	}
	display := make(map[string]string, len(req.DisplayNames))
	for name, shown := range req.DisplayNames {
		p, err := cleanVirtualPath(name)
		if err != nil {
			return nil, fmt.Errorf("displayNames: %w", err)
		}
		display[p] = shown
	}
	root := e.names.newRoot(display)
	overlay := make(map[string]load.Source, len(files))
	for p, data := range files {
		overlay[path.Join(root, p)] = load.FromBytes(data)
	}
	acceptLegacy := true
	if req.AcceptLegacyModules != nil {
		acceptLegacy = *req.AcceptLegacyModules
	}
	cfg := &load.Config{
		Overlay:             overlay,
		Dir:                 path.Join(root, dir),
		ModuleRoot:          path.Join(root, moduleRoot),
		Package:             req.Package,
		Tags:                req.Tags,
		DataFiles:           req.DataFiles,
		AcceptLegacyModules: acceptLegacy,
		Registry:            noRegistry{},
		Env:                 []string{},
	}
	if len(req.TagVars) > 0 {
		cfg.TagVars = make(map[string]load.TagVar, len(req.TagVars))
		for name, value := range req.TagVars {
			cfg.TagVars[name] = load.TagVar{Func: func() (ast.Expr, error) { return ast.NewString(value), nil }}
		}
	}
	return &loadSetup{cfg: cfg, root: root, moduleRoot: moduleRoot, moduleKey: moduleKey(files, moduleRoot, req, display)}, nil
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func (e *Engine) load(req loadRequest) (any, error) {
	setup, err := e.loadSetup(req)
	if err != nil {
		return nil, err
	}
	if setup.moduleKey == "" {
		inst, err := loadOne(req, setup.cfg)
		if err != nil {
			return nil, err
		}
		v := newContext().BuildInstance(inst)
		if err := v.Err(); err != nil {
			return nil, err
		}
		return e.newHandle(v), nil
	}
	module := e.modules.get(setup.moduleKey)
	module.configure(setup.cfg, setup.root, setup.moduleRoot)
	inst, fresh, reused, withStandIns := module.loadWithStandIns(req.Args, setup.cfg, setup.root, setup.moduleRoot)
	if withStandIns {
		e.modules.standInLoads++
	} else {
		if inst, err = loadOne(req, setup.cfg); err != nil {
			return nil, err
		}
		fresh, reused, _ = module.substituteImports(inst, setup.root, setup.moduleRoot, nil)
	}
	if reused {
		e.modules.reused++
	}
	module.loads++
	v := module.ctx.BuildInstance(inst)
	module.remember(fresh, setup.root)
	if err := v.Err(); err != nil {
		return nil, err
	}
	return e.newHandle(v), nil
}

// loadOne runs the loader on the request's files and expects one instance.
func loadOne(req loadRequest, cfg *load.Config) (*build.Instance, error) {
	instances := load.Instances(req.Args, cfg)
	if len(instances) == 0 {
		return nil, fmt.Errorf("no CUE instances found in %q", orDot(req.Dir))
	}
	if len(instances) > 1 {
		names := make([]string, len(instances))
		for i, inst := range instances {
			names[i] = inst.PkgName
		}
		return nil, fmt.Errorf("found %d CUE instances (packages %s) where one was expected; choose one with the package option", len(instances), strings.Join(names, ", "))
	}
	if inst := instances[0]; inst.Err != nil {
		return nil, inst.Err
	}
	return instances[0], nil
}
