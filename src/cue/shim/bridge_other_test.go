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

// After the switch, a notify: request is answered on the named pipe, and then an empty
// frame on the original response stream (file descriptor 3) says so; never before the
// whole response is written, never for other requests.
func TestServeFramesNotifiesOnTheOriginalStream(t *testing.T) {
	dir := t.TempDir()
	stdinR, stdinW := io.Pipe()
	fd3R, fd3W := io.Pipe()
	closed := make(chan error, 2)
	go func() {
		_ = serveFrames(stdinR, fd3W, NewEngine(), func(err error) { closed <- err }, fifoSwitch(dir))
	}()
	go func() { _, _ = stdinW.Write(requestBytes(notifyPrefix+switchMethod, "{}")) }()
	answer, err := readChunk(fd3R)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result fifoPaths `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &resp); err != nil || resp.Result.Requests == "" {
		t.Fatalf("answer %s: %v", answer, err)
	}
	// Everything written on descriptor 3 from now on, read as it comes.
	notified := make(chan []byte, 8)
	go func() {
		for {
			var frame [4]byte
			if _, err := io.ReadFull(fd3R, frame[:]); err != nil {
				close(notified)
				return
			}
			notified <- frame[:]
		}
	}()
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
	big := strings.Repeat("x", 300_000) // more than a pipe holds: its write waits for the reader
	load, _ := json.Marshal(loadRequest{Files: map[string]string{"a.cue": "package a\nx: \"" + big + "\"\n"}, Package: "a"})
	if _, err := req.Write(append(requestBytes("load", string(load)), requestBytes(notifyPrefix+"toJSON", `{"handle":1}`)...)); err != nil {
		t.Fatal(err)
	}
	if got, err := readChunk(res); err != nil || got != `{"result":{"handle":1}}` {
		t.Fatalf("load: %s, %v", got, err)
	}
	select {
	case frame := <-notified:
		t.Fatalf("notified (%v) before the response was read whole", frame)
	case <-time.After(300 * time.Millisecond):
	}
	if got, err := readChunk(res); err != nil || got != `{"result":{"x":"`+big+`"}}` {
		t.Fatalf("toJSON: %.80s, %v", got, err)
	}
	select {
	case frame := <-notified:
		if string(frame) != "\x00\x00\x00\x00" {
			t.Errorf("want an empty frame, got %v", frame)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification after the response")
	}
	// A plain request is not notified; a notify: request that fails is.
	if _, err := req.Write(append(requestBytes("version", "{}"), requestBytes(notifyPrefix+"noSuchMethod", "{}")...)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"result"`, "unknown CUE engine method"} {
		if got, err := readChunk(res); err != nil || !strings.Contains(got, want) {
			t.Fatalf("want %s, got %s, %v", want, got, err)
		}
	}
	select {
	case frame := <-notified:
		if string(frame) != "\x00\x00\x00\x00" {
			t.Errorf("want an empty frame, got %v", frame)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification after the failed call")
	}
	_ = stdinW.Close()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("a clean end, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the end of standard input was not seen")
	}
	_ = fd3W.Close()
	if frame, more := <-notified; more {
		t.Errorf("one notification per notify: request after the switch; another: %v", frame)
	}
}
