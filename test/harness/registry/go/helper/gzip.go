package main

import (
	"compress/gzip"
	"fmt"
	"io"
)

// gzipStream compresses stdin to stdout with Go's compress/gzip at the default level and
// an empty header (no name, time zero), as Timoni's module packager writes its layers.
func gzipStream(input io.Reader, output io.Writer) error {
	writer := gzip.NewWriter(output)
	if _, err := io.Copy(writer, input); err != nil {
		return fmt.Errorf("compressing stdin: %w", err)
	}
	if err := writer.Close(); err != nil {
		return fmt.Errorf("finishing the gzip stream: %w", err)
	}
	return nil
}
