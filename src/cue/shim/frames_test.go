package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func requestBytes(method, request string) []byte {
	var b bytes.Buffer
	for _, chunk := range []string{method, request} {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(chunk)))
		b.Write(n[:])
		b.WriteString(chunk)
	}
	return b.Bytes()
}

func readResponses(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	r := bytes.NewReader(data)
	for r.Len() > 0 {
		text, err := readChunk(r)
		if err != nil {
			t.Fatalf("reading a response frame: %v", err)
		}
		out = append(out, text)
	}
	return out
}

// The frames carry the same calls as the WebAssembly bridge, with the same answers.
func TestServeFramesAnswersEachRequestInOrder(t *testing.T) {
	var in bytes.Buffer
	load, _ := json.Marshal(loadRequest{Files: map[string]string{"a.cue": "package a\nx: 1\ny: \"é\" + \"\\u0000\"\n"}, Package: "a"})
	in.Write(requestBytes("load", string(load)))
	in.Write(requestBytes("toJSON", `{"handle":1}`))
	in.Write(requestBytes("noSuchMethod", `{}`))
	var out bytes.Buffer
	var closedWith error = io.ErrNoProgress
	if err := serveFrames(&in, &out, NewEngine(), func(err error) { closedWith = err }, nil); err != nil {
		t.Fatal(err)
	}
	if closedWith != nil {
		t.Errorf("a clean end of the requests must be reported as nil, got %v", closedWith)
	}
	got := readResponses(t, out.Bytes())
	direct := NewEngine()
	want := []string{direct.Call("load", string(load)), direct.Call("toJSON", `{"handle":1}`), direct.Call("noSuchMethod", "{}")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("framed answers differ from direct calls:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(got[1], `"y":"é\u0000"`) {
		t.Errorf("non-ASCII text must survive the frames: %s", got[1])
	}
}

func TestServeFramesReportsATruncatedRequest(t *testing.T) {
	data := requestBytes("version", "{}")
	var closedWith error
	var out bytes.Buffer
	_ = serveFrames(bytes.NewReader(data[:len(data)-1]), &out, NewEngine(), func(err error) { closedWith = err }, nil)
	if closedWith == nil || !strings.Contains(closedWith.Error(), "request of version") {
		t.Errorf("want an error naming the truncated request, got %v", closedWith)
	}
	if out.Len() != 0 {
		t.Errorf("no response may be written for a truncated request, got %q", out.String())
	}
}

func TestReadRequestRefusesOversizedFrames(t *testing.T) {
	var header [4]byte
	binary.LittleEndian.PutUint32(header[:], maxFrameBytes+1)
	if _, err := readRequest(bytes.NewReader(header[:])); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Errorf("want the size refusal, got %v", err)
	}
}

// timedWriter records when the first response was written.
type timedWriter struct{ first chan time.Time }

func (w *timedWriter) Write(p []byte) (int, error) {
	select {
	case w.first <- time.Now():
	default:
	}
	return len(p), nil
}

// The end of the requests is seen while a call still runs: the native program exits
// then, even when an evaluation never ends.
func TestServeFramesSeesTheEndDuringALongCall(t *testing.T) {
	source := "package a\nimport \"list\"\nn: len(list.Range(0, 2000000, 1))\n"
	load, _ := json.Marshal(loadRequest{Files: map[string]string{"a.cue": source}, Package: "a"})
	reader, writer := io.Pipe()
	closed := make(chan time.Time, 1)
	out := &timedWriter{first: make(chan time.Time, 1)}
	go func() {
		_ = serveFrames(reader, out, NewEngine(), func(error) { closed <- time.Now() }, nil)
	}()
	if _, err := writer.Write(requestBytes("load", string(load))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	ended := time.Now()
	_ = writer.Close()
	var seen time.Time
	select {
	case seen = <-closed:
		if seen.Sub(ended) > time.Second {
			t.Errorf("the end was seen %v after it happened", seen.Sub(ended))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the end of the requests was not seen while a call ran")
	}
	answered := <-out.first
	if !answered.After(seen) {
		t.Errorf("the call must still have been running when the end was seen (answered %v before)", seen.Sub(answered))
	}
}

func TestMemoryWatchStopsPastTheLimit(t *testing.T) {
	debug.FreeOSMemory() // a baseline without the garbage of earlier tests
	used := memoryInUse(memorySamples())
	if used == 0 {
		t.Fatal("the Go runtime reports no memory in use")
	}
	exceeded := make(chan uint64, 1)
	startMemoryWatch(used+64<<20, func(u uint64) { exceeded <- u })
	defer debugResetMemoryLimit()
	// Enough blocks to hold the limit and 64 MiB more.
	blocks := int((used+128<<20)/(4<<20)) + 1
	keep := make([][]byte, 0, blocks)
	deadline := time.After(20 * time.Second)
	for {
		select {
		case u := <-exceeded:
			if u < used+64<<20 {
				t.Errorf("reported %d bytes in use, below the limit", u)
			}
			return
		case <-deadline:
			t.Fatal("the watch did not see the limit passed")
		default:
		}
		if len(keep) < blocks {
			block := make([]byte, 4<<20)
			for i := range block {
				block[i] = byte(i)
			}
			keep = append(keep, block)
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// Before a switch of streams (or without one) a notify: request is answered as its
// method, on the same stream, with nothing more written.
func TestServeFramesNotifyBeforeASwitch(t *testing.T) {
	for name, switcher := range map[string]channelSwitch{
		"no switch":           nil,
		"switch not yet used": func() (string, func() (io.Reader, io.Writer, error)) { t.Fatal("not asked for"); return "", nil },
	} {
		t.Run(name, func(t *testing.T) {
			var in bytes.Buffer
			in.Write(requestBytes(notifyPrefix+"version", "{}"))
			in.Write(requestBytes(notifyPrefix+"noSuchMethod", "{}"))
			var out bytes.Buffer
			if err := serveFrames(&in, &out, NewEngine(), func(error) {}, switcher); err != nil {
				t.Fatal(err)
			}
			direct := NewEngine()
			want := []string{direct.Call("version", "{}"), direct.Call("noSuchMethod", "{}")}
			if got := readResponses(t, out.Bytes()); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
