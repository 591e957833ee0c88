//go:build unix && !(js && wasm)

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Named pipes for the frames. Through standard input and file descriptor 3 each call
// crosses a worker thread of the caller (its pipes belong to that thread's event
// loop); through two named pipes the caller's main thread reads and writes itself,
// blocking, which takes about a third of the time per call. The caller asks for them
// once the program runs (switchMethod); they are made here, in the private folder,
// so that only this program and its caller can open them.

type fifoPaths struct {
	Requests  string `json:"requests"`
	Responses string `json:"responses"`
}

// fifoSwitch makes the named pipes in dir and opens them once the caller has opened
// its ends; nil when there is no folder.
func fifoSwitch(dir string) channelSwitch {
	if dir == "" {
		return nil
	}
	return func() (string, func() (io.Reader, io.Writer, error)) {
		paths := fifoPaths{Requests: filepath.Join(dir, "requests"), Responses: filepath.Join(dir, "responses")}
		for _, p := range []string{paths.Requests, paths.Responses} {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				return errorResponse(fmt.Errorf("cannot make the named pipe %s: %w", p, err)), nil
			}
		}
		open := func() (io.Reader, io.Writer, error) {
			in, err := os.OpenFile(paths.Requests, os.O_RDONLY, 0)
			if err != nil {
				return nil, nil, err
			}
			out, err := os.OpenFile(paths.Responses, os.O_WRONLY, 0)
			if err != nil {
				in.Close()
				return nil, nil, err
			}
			return in, out, nil
		}
		return encodeResponse(okResponse{Result: paths}), open
	}
}
