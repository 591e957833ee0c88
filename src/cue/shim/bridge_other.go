//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The native engine (linux, darwin): src/cue/native-runtime.ts starts this program
// with an empty environment in a private folder, writes requests to its standard
// input and reads responses from file descriptor 3 (frames.go), until it asks to move
// them to two named pipes in that folder (fifo_unix.go); standard input then only
// tells that the caller lives. Standard output and standard error are the caller's to
// route; the protocol never uses them, so a stray print cannot corrupt a response.

// responseFD is the file descriptor the caller reads responses from.
const responseFD = 3

// exitMemoryLimit is the exit code when the memory limit was passed (memwatch.go);
// src/cue/native-runtime.ts turns it into the same error as the WebAssembly engine's.
const exitMemoryLimit = 86

// exitUsage is the exit code for a start the program cannot work with.
const exitUsage = 2

type nativeOptions struct {
	memoryLimitMiB int
	workdir        string
}

func parseNativeOptions(args []string) (nativeOptions, error) {
	var opts nativeOptions
	for i := 0; i < len(args); i++ {
		if i+1 >= len(args) {
			return opts, fmt.Errorf("option %s needs a value", args[i])
		}
		switch args[i] {
		case "--memory-limit-mib":
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n <= 0 {
				return opts, fmt.Errorf("--memory-limit-mib must be a positive number, not %q", args[i+1])
			}
			opts.memoryLimitMiB = n
		case "--workdir":
			if !filepath.IsAbs(args[i+1]) {
				return opts, fmt.Errorf("--workdir must be an absolute path, not %q", args[i+1])
			}
			opts.workdir = args[i+1]
		default:
			return opts, fmt.Errorf("unknown option %s", args[i])
		}
		i++
	}
	return opts, nil
}

// serve answers requests until the caller closes standard input (or exits: the pipe
// then ends too), then removes the private folder it was started in and exits.
func serve() {
	opts, err := parseNativeOptions(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "cue-shim: %v\n", err)
		os.Exit(exitUsage)
	}
	responses := os.NewFile(responseFD, "responses")
	if responses == nil {
		fmt.Fprintln(os.Stderr, "cue-shim: file descriptor 3 (responses) is not open; the program is started by src/cue/native-runtime.ts")
		os.Exit(exitUsage)
	}
	if _, err := responses.Stat(); err != nil {
		fmt.Fprintf(os.Stderr, "cue-shim: file descriptor 3 (responses) is not usable: %v\n", err)
		os.Exit(exitUsage)
	}
	if opts.memoryLimitMiB > 0 {
		// The exit code says it all; the caller words the error (as for the WebAssembly).
		// The caller lives and removes the folder (with the named pipes it holds).
		startMemoryWatch(uint64(opts.memoryLimitMiB)<<20, func(uint64) { os.Exit(exitMemoryLimit) })
	}
	// The end of the requests: the caller closed them or is gone (killed, say), and
	// then nobody else removes the folder.
	closed := func(err error) {
		code := 0
		if err != nil {
			fmt.Fprintf(os.Stderr, "cue-shim: reading requests: %v\n", err)
			code = 1
		}
		cleanupAndExit(opts.workdir, code)
	}
	if err := serveFrames(os.Stdin, responses, NewEngine(), closed, fifoSwitch(opts.workdir)); err != nil {
		// A response that cannot be written: its reader is gone with the caller.
		fmt.Fprintf(os.Stderr, "cue-shim: %v\n", err)
		cleanupAndExit(opts.workdir, 1)
	}
	cleanupAndExit(opts.workdir, 0)
}

// cleanupAndExit removes the private folder (the caller removes it too when it lives;
// whoever is first) and ends the program.
func cleanupAndExit(workdir string, code int) {
	if workdir != "" {
		_ = os.RemoveAll(workdir)
	}
	os.Exit(code)
}
