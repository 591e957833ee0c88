package main

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// Position is a place in a source file, with the file's display name.
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// Diagnostic is one CUE error: its message, the CUE path it concerns, and the
// source positions involved (primary position first).
type Diagnostic struct {
	Message   string     `json:"message"`
	Path      string     `json:"path"`
	Positions []Position `json:"positions"`
	// InputPositionsOnly is set when the error has no position of its own (an
	// incomplete value, say) and Positions are only the places it comes from; CUE's
	// errors.Print sorts such errors before those with a position.
	InputPositionsOnly bool `json:"inputPositionsOnly,omitempty"`
}

// diagnosticError carries ready-made diagnostics through Go's error plumbing.
type diagnosticError struct {
	diagnostics []Diagnostic
}

func (e *diagnosticError) Error() string {
	lines := make([]string, len(e.diagnostics))
	for i, d := range e.diagnostics {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// String renders a diagnostic as "file:line:col: path: message".
func (d Diagnostic) String() string {
	var b strings.Builder
	if len(d.Positions) > 0 {
		p := d.Positions[0]
		fmt.Fprintf(&b, "%s:%d:%d: ", p.File, p.Line, p.Column)
	}
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// position converts a CUE position, showing the file by its display name; ok is
// false when the position points nowhere. A nil receiver keeps file names as they are.
func (s *sourceNames) position(p token.Pos) (Position, bool) {
	if !p.IsValid() || p.File() == nil {
		return Position{}, false
	}
	pos := p.Position()
	file := pos.Filename
	if s != nil {
		file = s.display(file)
	}
	return Position{File: file, Line: pos.Line, Column: pos.Column}, true
}

// message renders an error's message with the messages of the errors it wraps,
// as cue/errors.Print does, but without path and positions.
func message(e errors.Error) string {
	var b strings.Builder
	for {
		format, args := e.Msg()
		before := b.Len()
		fmt.Fprintf(&b, format, args...)
		next := errors.Unwrap(e)
		if next == nil {
			break
		}
		if b.Len() > before {
			b.WriteString(": ")
		}
		wrapped, ok := next.(errors.Error)
		if !ok {
			b.WriteString(next.Error())
			break
		}
		e = wrapped
	}
	return scrub(b.String())
}

// wrapperPrefix returns the context that plain Go errors (fmt.Errorf("...: %w"))
// add in front of the CUE errors they wrap, which errors.Errors would drop.
func wrapperPrefix(err error) string {
	if _, isCUE := err.(errors.Error); isCUE {
		return ""
	}
	var inner errors.Error
	if !errors.As(err, &inner) {
		return ""
	}
	full, wrapped := err.Error(), inner.Error()
	if !strings.HasSuffix(full, wrapped) {
		return ""
	}
	return strings.TrimSuffix(full, wrapped)
}

// diagnostics splits any error into diagnostics, one per CUE error. Errors that
// are not CUE errors become a single diagnostic without path or position.
func (s *sourceNames) diagnostics(err error) []Diagnostic {
	if err == nil {
		return nil
	}
	var ready *diagnosticError
	if errors.As(err, &ready) {
		return ready.diagnostics
	}
	prefix := wrapperPrefix(err)
	list := errors.Errors(err)
	out := make([]Diagnostic, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		d := Diagnostic{
			Message:   scrub(prefix) + message(e),
			Path:      strings.Join(e.Path(), "."),
			Positions: []Position{},
		}
		for _, p := range errors.Positions(e) {
			if pos, ok := s.position(p); ok {
				d.Positions = append(d.Positions, pos)
			}
		}
		d.InputPositionsOnly = !e.Position().IsValid() && len(d.Positions) > 0
		key := d.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, d)
	}
	return out
}

// newDiagnostic builds a single-diagnostic error.
func newDiagnostic(message, path string, positions ...Position) error {
	if positions == nil {
		positions = []Position{}
	}
	return &diagnosticError{diagnostics: []Diagnostic{{Message: message, Path: path, Positions: positions}}}
}
