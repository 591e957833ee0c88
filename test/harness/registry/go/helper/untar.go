package main

import (
	"encoding/json"
	"io"

	"github.com/fluxcd/pkg/tar"
)

// untarResult is what the untar command prints: nil error when extraction succeeded.
type untarResult struct {
	Error *string `json:"error"`
}

// untarLayer extracts one gzip layer from stdin into dir with fluxcd/pkg/tar, under the
// limits Timoni v0.32 extracts module layers with (internal/oci/extract.go): the default
// 100 MiB size limit, symlinks skipped. It prints the outcome as JSON; a refused archive
// is a result, not a failure of the command.
func untarLayer(input io.Reader, output io.Writer, dir string) error {
	result := untarResult{}
	if err := tar.Untar(input, dir, tar.WithMaxUntarSize(tar.DefaultMaxUntarSize), tar.WithSkipSymlinks()); err != nil {
		message := err.Error()
		result.Error = &message
	}
	return json.NewEncoder(output).Encode(result)
}
