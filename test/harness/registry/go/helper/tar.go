package main

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
)

// tarEntry is one archive member as the TypeScript tests describe it.
type tarEntry struct {
	Name     string `json:"name"`
	Typeflag string `json:"typeflag"` // one character: "0" file, "5" directory, "2" symlink
	Mode     int64  `json:"mode"`
	Linkname string `json:"linkname"`
	Content  []byte `json:"content"` // base64 in JSON
}

// writeTar encodes the entries with Go's archive/tar, with owner, group and every time
// left at their zero values, as Timoni's module packager leaves them. The TypeScript tar
// writer is compared byte for byte against this output.
func writeTar(input io.Reader, output io.Writer) error {
	var entries []tarEntry
	if err := json.NewDecoder(input).Decode(&entries); err != nil {
		return fmt.Errorf("decoding the entries from stdin: %w", err)
	}
	tw := tar.NewWriter(output)
	for _, entry := range entries {
		if len(entry.Typeflag) != 1 {
			return fmt.Errorf("entry %q: typeflag %q is not one character", entry.Name, entry.Typeflag)
		}
		header := &tar.Header{
			Name:     entry.Name,
			Typeflag: entry.Typeflag[0],
			Mode:     entry.Mode,
			Linkname: entry.Linkname,
		}
		if header.Typeflag == tar.TypeReg {
			header.Size = int64(len(entry.Content))
		}
		if err := tw.WriteHeader(header); err != nil {
			return fmt.Errorf("entry %q: %w", entry.Name, err)
		}
		if header.Typeflag == tar.TypeReg {
			if _, err := tw.Write(entry.Content); err != nil {
				return fmt.Errorf("entry %q: %w", entry.Name, err)
			}
		}
	}
	return tw.Close()
}
