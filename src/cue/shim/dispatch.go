package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

var errInvalidCall = errors.New("the CUE engine expects two string arguments: a method name and a JSON request")

// method handles one kind of request; its result is encoded as JSON.
type method func(e *Engine, request []byte) (any, error)

// methods lists everything the TypeScript side may call (see src/cue/protocol.ts).
var methods = map[string]method{
	"load":                  withRequest((*Engine).load),
	"putFiles":              withRequest((*Engine).putFiles),
	"compile":               withRequest((*Engine).compile),
	"injectRuntimeValues":   withRequest((*Engine).injectRuntimeValues),
	"listRuntimeAttributes": withRequest((*Engine).listRuntimeAttributes),
	"mergeInstanceValues":   withRequest((*Engine).mergeInstanceValues),
	"version":               withRequest((*Engine).version),
	"lookup":                withRequest((*Engine).lookup),
	"exists":                withRequest((*Engine).exists),
	"kind":                  withRequest((*Engine).kind),
	"fill":                  withRequest((*Engine).fill),
	"fillValue":             withRequest((*Engine).fillValue),
	"unify":                 withRequest((*Engine).unify),
	"validate":              withRequest((*Engine).validate),
	"toJSON":                withRequest((*Engine).toJSON),
	"toYAML":                withRequest((*Engine).toYAML),
	"objectsYAML":           withRequest((*Engine).objectsYAML),
	"hasBytes":              withRequest((*Engine).hasBytes),
	"toCUE":                 withRequest((*Engine).toCUE),
	"fields":                withRequest((*Engine).fields),
	"position":              withRequest((*Engine).position),
	"free":                  withRequest((*Engine).free),
	"freeMany":              withRequest((*Engine).freeMany),
	"stats":                 withRequest((*Engine).stats),
}

// withRequest decodes the JSON request strictly into R before calling f.
func withRequest[R any](f func(*Engine, R) (any, error)) method {
	return func(e *Engine, raw []byte) (any, error) {
		var req R
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, fmt.Errorf("malformed request: %w", err)
		}
		return f(e, req)
	}
}

type okResponse struct {
	Result any `json:"result"`
}

type errorBody struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type errResponse struct {
	Error errorBody `json:"error"`
}

func encodeResponse(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only reachable with a value JSON cannot represent; report it as an error.
		return errorResponse(fmt.Errorf("cannot encode the CUE engine's response: %w", err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// errorResponse reports an error that happened outside of any load (no file
// names to translate).
func errorResponse(err error) string {
	return (*sourceNames)(nil).errorResponse(err)
}

func (s *sourceNames) errorResponse(err error) string {
	diagnostics := s.diagnostics(err)
	if len(diagnostics) == 0 {
		diagnostics = []Diagnostic{{Message: err.Error(), Positions: []Position{}}}
	}
	return encodeResponse(errResponse{Error: errorBody{Diagnostics: diagnostics}})
}

// Call runs one method with its JSON request and returns the JSON response:
// {"result": ...} or {"error": {"diagnostics": [...]}}. It never panics.
func (e *Engine) Call(name, request string) (response string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			response = e.names.errorResponse(fmt.Errorf("internal error in the CUE engine while running %s: %v", name, r))
		}
	}()
	m, ok := methods[name]
	if !ok {
		names := make([]string, 0, len(methods))
		for n := range methods {
			names = append(names, n)
		}
		sort.Strings(names)
		return errorResponse(fmt.Errorf("unknown CUE engine method %q (known: %s)", name, strings.Join(names, ", ")))
	}
	result, err := m(e, []byte(request))
	if err != nil {
		return e.names.errorResponse(err)
	}
	return encodeResponse(okResponse{Result: result})
}
