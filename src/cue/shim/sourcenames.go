package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The loader reads the caller's files from memory through load.Config.Overlay, on
// a virtual root per load: /timoni-fleet-virtual/load-<n>. (load.Config.FS would be
// the natural choice, but in CUE v0.17.1 it cannot resolve imports from
// cue.mod/gen, cue.mod/pkg or cue.mod/usr: cue/load's absPathForSourceLoc fails
// with "cannot get absolute path for FS of type *load.fsIOFS".) Paths under the
// virtual root never exist on the host; in WebAssembly every host file operation
// fails anyway (src/cue/go-sandbox.ts).
const virtualRootBase = "/timoni-fleet-virtual"

// virtualRootPattern matches a virtual root (and the slash after it) in text.
var virtualRootPattern = regexp.MustCompile(regexp.QuoteMeta(virtualRootBase) + `/load-[0-9]+(/|\b)`)

// sourceNames maps file names under virtual roots to the names callers want to
// see in positions and messages.
type sourceNames struct {
	next  int
	roots map[string]map[string]string // virtual root -> relative path -> display name
}

func newSourceNames() *sourceNames {
	return &sourceNames{roots: make(map[string]map[string]string)}
}

// newRoot reserves a virtual root for one load and records its display names
// (keyed by cleaned relative paths).
func (s *sourceNames) newRoot(display map[string]string) string {
	s.next++
	root := fmt.Sprintf("%s/load-%d", virtualRootBase, s.next)
	s.roots[root] = display
	return root
}

// display returns the name to show for a file name seen in a position.
func (s *sourceNames) display(filename string) string {
	if !strings.HasPrefix(filename, virtualRootBase+"/") {
		return filename
	}
	rest := strings.TrimPrefix(filename, virtualRootBase+"/")
	loadDir, rel, _ := strings.Cut(rest, "/")
	root := virtualRootBase + "/" + loadDir
	if shown, ok := s.roots[root][rel]; ok {
		return shown
	}
	if rel == "" {
		return "."
	}
	return rel
}

// scrub removes virtual roots from free text such as error messages.
func scrub(text string) string {
	if !strings.Contains(text, virtualRootBase) {
		return text
	}
	return virtualRootPattern.ReplaceAllStringFunc(text, func(root string) string {
		if strings.HasSuffix(root, "/") {
			return ""
		}
		return "."
	})
}
