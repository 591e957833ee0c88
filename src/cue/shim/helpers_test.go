package main

import (
	"encoding/json"
	"runtime"
	"testing"

	"cuelang.org/go/cue"
)

type testResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
	} `json:"error"`
}

// callRaw runs a method through the same entry point as the WebAssembly bridge.
func callRaw(t *testing.T, e *Engine, method string, request any) testResponse {
	t.Helper()
	data, err := json.Marshal(request)
	if err != nil {
		t.Fatalf("encoding %s request: %v", method, err)
	}
	var resp testResponse
	if err := json.Unmarshal([]byte(e.Call(method, string(data))), &resp); err != nil {
		t.Fatalf("decoding %s response: %v", method, err)
	}
	return resp
}

// call runs a method that must succeed and decodes its result into out (if not nil).
func call(t *testing.T, e *Engine, method string, request any, out any) {
	t.Helper()
	resp := callRaw(t, e, method, request)
	if resp.Error != nil {
		t.Fatalf("%s failed: %+v", method, resp.Error.Diagnostics)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Result, out); err != nil {
			t.Fatalf("decoding %s result %s: %v", method, resp.Result, err)
		}
	}
}

// callFail runs a method that must fail and returns its diagnostics.
func callFail(t *testing.T, e *Engine, method string, request any) []Diagnostic {
	t.Helper()
	resp := callRaw(t, e, method, request)
	if resp.Error == nil {
		t.Fatalf("%s succeeded with %s, want an error", method, resp.Result)
	}
	return resp.Error.Diagnostics
}

func handleOf(t *testing.T, e *Engine, method string, request any) uint32 {
	t.Helper()
	var h handleResult
	call(t, e, method, request, &h)
	return h.Handle
}

func exportJSON(t *testing.T, e *Engine, handle uint32) string {
	t.Helper()
	resp := callRaw(t, e, "toJSON", map[string]any{"handle": handle})
	if resp.Error != nil {
		t.Fatalf("toJSON failed: %+v", resp.Error.Diagnostics)
	}
	return string(resp.Result)
}

func cueParse(p string) cue.Path { return cue.ParsePath(p) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func decodeResult(t *testing.T, response string, out any) {
	t.Helper()
	var resp testResponse
	if err := json.Unmarshal([]byte(response), &resp); err != nil {
		t.Fatalf("decoding %s: %v", response, err)
	}
	if resp.Error != nil {
		t.Fatalf("call failed: %+v", resp.Error.Diagnostics)
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		t.Fatalf("decoding result %s: %v", resp.Result, err)
	}
}

// heapAfterLoads loads (request(i) for each i), exports and frees as many values, then
// answers the heap in use after a collection: loads that were freed must not pile up.
func heapAfterLoads(t *testing.T, e *Engine, loads int, request func(i int) loadRequest) uint64 {
	t.Helper()
	for i := 0; i < loads; i++ {
		h := handleOf(t, e, "load", request(i))
		exportJSON(t, e, h)
		call(t, e, "free", valueRequest{Handle: h}, nil)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
