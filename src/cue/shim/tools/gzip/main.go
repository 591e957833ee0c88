// Command gzip compresses one file deterministically for scripts/build-cue.mjs:
// the gzip header carries no name and no modification time, and Go's
// compress/gzip at a fixed level gives the same bytes for the same input with the
// same Go release, independently of the zlib that Node.js was built with.
//
// Usage: go run ./tools/gzip INPUT OUTPUT
package main

import (
	"compress/gzip"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gzip INPUT OUTPUT")
		os.Exit(2)
	}
	if err := compress(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintf(os.Stderr, "gzip: %v\n", err)
		os.Exit(1)
	}
}

func compress(input, output string) error {
	data, err := os.ReadFile(input)
	if err != nil {
		return err
	}
	f, err := os.Create(output)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		f.Close()
		return err
	}
	// Header fields stay zero: no file name, no modification time, OS "unknown".
	zw.OS = 255
	if _, err := zw.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("compressing %s: %w", input, err)
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("compressing %s: %w", input, err)
	}
	return f.Close()
}
