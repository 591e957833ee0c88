//go:build !(js && wasm)

package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseNativeOptions(t *testing.T) {
	opts, err := parseNativeOptions([]string{"--memory-limit-mib", "256", "--workdir", "/tmp/x"})
	if err != nil || opts.memoryLimitMiB != 256 || opts.workdir != "/tmp/x" {
		t.Errorf("got %+v, %v", opts, err)
	}
	for _, bad := range [][]string{{"--memory-limit-mib", "0"}, {"--workdir", "relative"}, {"--other", "1"}, {"--workdir"}} {
		if _, err := parseNativeOptions(bad); err == nil {
			t.Errorf("%q must be refused", bad)
		}
	}
}

// After useFifos the frames go through the named pipes, and the end of standard
// input still ends everything.
func TestServeFramesMovesToNamedPipes(t *testing.T) {
	dir := t.TempDir()
	stdinR, stdinW := io.Pipe()
	fd3R, fd3W := io.Pipe()
	closed := make(chan error, 2)
	go func() {
		_ = serveFrames(stdinR, fd3W, NewEngine(), func(err error) { closed <- err }, fifoSwitch(dir))
	}()
	go func() { _, _ = stdinW.Write(requestBytes(switchMethod, "{}")) }()
	answer, err := readChunk(fd3R)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result fifoPaths `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &resp); err != nil || resp.Result.Requests != filepath.Join(dir, "requests") {
		t.Fatalf("answer %s: %v", answer, err)
	}
	// The caller's ends, as src/cue/native-runtime.ts opens them (read and write: never blocks).
	req, err := os.OpenFile(resp.Result.Requests, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer req.Close()
	res, err := os.OpenFile(resp.Result.Responses, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	big := strings.Repeat("x", 300_000) // more than a pipe holds
	load, _ := json.Marshal(loadRequest{Files: map[string]string{"a.cue": "package a\nx: \"" + big + "\"\n"}, Package: "a"})
	go func() {
		_, _ = req.Write(append(requestBytes("load", string(load)), requestBytes("toJSON", `{"handle":1}`)...))
	}()
	for _, want := range []string{`{"result":{"handle":1}}`, `{"result":{"x":"` + big + `"}}`} {
		got, err := readChunk(res)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("through the named pipes: got %.80s, want %.80s", got, want)
		}
	}
	_ = stdinW.Close()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("a clean end, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the end of standard input was not seen after the switch")
	}
}
