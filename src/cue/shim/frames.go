package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync"
)

// The native engine's framing (src/cue/native-runtime.ts speaks the other end). A
// request is the method name and the JSON request, each preceded by its length; a
// response is the JSON response preceded by its length. Lengths are unsigned 32-bit
// little-endian numbers of bytes.

// maxFrameBytes bounds one frame, so a corrupt length cannot make the engine
// allocate gigabytes before failing.
const maxFrameBytes = 1 << 30

// requestFrame is one call read from the caller.
type requestFrame struct {
	method  string
	request string
}

func readLength(r io.Reader) (int, error) {
	var header [4]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return 0, err
	}
	n := binary.LittleEndian.Uint32(header[:])
	if n > maxFrameBytes {
		return 0, fmt.Errorf("frame of %d bytes is larger than the limit of %d", n, maxFrameBytes)
	}
	return int(n), nil
}

func readChunk(r io.Reader) (string, error) {
	n, err := readLength(r)
	if err != nil {
		return "", err
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	return string(data), nil
}

// readRequest reads one request; io.EOF means the caller closed the stream between
// two requests (a clean end).
func readRequest(r io.Reader) (requestFrame, error) {
	method, err := readChunk(r)
	if err != nil {
		return requestFrame{}, err
	}
	request, err := readChunk(r)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return requestFrame{}, fmt.Errorf("request of %s: %w", method, err)
	}
	return requestFrame{method: method, request: request}, nil
}

// writeResponse writes one response frame in a single write.
func writeResponse(w io.Writer, response string) error {
	frame := make([]byte, 4+len(response))
	binary.LittleEndian.PutUint32(frame, uint32(len(response)))
	copy(frame[4:], response)
	_, err := w.Write(frame)
	return err
}

// channelSwitch moves the frames to other streams when the caller asks for it
// (switchMethod): it returns the answer to give on the current streams and a function
// that opens the new ones (it may block until the caller has opened its ends).
type channelSwitch func() (answer string, open func() (io.Reader, io.Writer, error))

// switchMethod is the request that moves the frames (fifo_unix.go); it is not an
// engine method.
const switchMethod = "useFifos"

// notifyPrefix marks a request whose caller waits for the response in its event loop:
// the request is the method after the prefix, and once its response is written
// whole on the streams of a channel switch, an empty frame on the original response
// stream tells that event loop, which watches only that stream, that the response
// waits on the new one. Before a switch (and for the switch itself) the response is
// on the original stream, and nothing more is written.
const notifyPrefix = "notify:"

// notification is the frame written for a notifyPrefix request: a length of 0.
var notification = []byte{0, 0, 0, 0}

// serveFrames answers requests from in on out until in ends. Requests are read by a
// goroutine of their own, so that the end of in is seen at once even while a call
// evaluates (a loop in CUE): closed(err) is called from that goroutine with nil for a
// clean end. The native program exits there; tests let serveFrames return instead.
// With a channelSwitch, a switchMethod request moves requests and responses to the
// streams it opens; the end of in still ends everything (in is then only the sign
// that the caller lives).
func serveFrames(in io.Reader, out io.Writer, e *Engine, closed func(error), switcher channelSwitch) error {
	// The caller waits for each response before its next request; the buffer only
	// keeps the readers free to see the end of their input in any case.
	requests := make(chan requestFrame, 16)
	var once sync.Once
	read := func(in io.Reader) {
		defer once.Do(func() { close(requests) })
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			frame, err := readRequest(br)
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				closed(err)
				return
			}
			requests <- frame
		}
	}
	go read(in)
	original, switched := out, false
	for frame := range requests {
		method, notify := strings.CutPrefix(frame.method, notifyPrefix)
		// Only a response written on the streams of a switch is notified.
		notify = notify && switched
		if method == switchMethod && switcher != nil {
			answer, open := switcher()
			if err := writeResponse(out, answer); err != nil {
				return fmt.Errorf("writing the response to %s: %w", frame.method, err)
			}
			if open != nil {
				newIn, newOut, err := open()
				if err != nil {
					return fmt.Errorf("opening the new streams: %w", err)
				}
				out, switched = newOut, true
				go read(newIn)
			}
		} else if err := writeResponse(out, e.Call(method, frame.request)); err != nil {
			return fmt.Errorf("writing the response to %s: %w", frame.method, err)
		}
		if notify {
			if _, err := original.Write(notification); err != nil {
				return fmt.Errorf("writing the notification of %s: %w", frame.method, err)
			}
		}
	}
	return nil
}
