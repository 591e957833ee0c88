package main

import (
	"context"
	"fmt"

	"cuelang.org/go/mod/modfile"
	"cuelang.org/go/mod/module"
)

// noRegistry is the module registry of every load: the engine resolves imports
// only from cue.mod/pkg, cue.mod/gen and cue.mod/usr inside the given files, so
// any attempt to reach a registry (a `deps` entry in cue.mod/module.cue, or an
// import no local package provides) fails with an explanation instead of
// touching the network.
type noRegistry struct{}

func (noRegistry) refusal(what string) error {
	return fmt.Errorf("%s: CUE module registries are not used by timoni-fleet; vendor the package under cue.mod/pkg (or cue.mod/gen, cue.mod/usr) instead", what)
}

func (r noRegistry) ModFile(_ context.Context, mv module.Version) (*modfile.File, error) {
	return nil, r.refusal("module " + mv.String())
}

func (r noRegistry) Fetch(_ context.Context, mv module.Version) (module.SourceLoc, error) {
	return module.SourceLoc{}, r.refusal("module " + mv.String())
}

func (r noRegistry) ModuleVersions(_ context.Context, mpath string) ([]string, error) {
	return nil, r.refusal("versions of module " + mpath)
}
