package main

import (
	"encoding/base64"
	"fmt"
)

// File sets: files the caller sends once and names by number in later loads. A
// module's cue.mod folder (the Kubernetes schemas: most of a module's bytes) is the
// same for every instance build of it; sent once, each load only carries the
// instance's own files. Bounded: the least recently used set is dropped past
// maxFileSets, and a load that names a dropped set fails with errUnknownFileSet's
// message, after which the caller sends the files again (src/cue/engine.ts).

const maxFileSets = 8

// fileSetUnknownPrefix starts the message of a load naming a set that is not kept.
const fileSetUnknownPrefix = "CUE file set not kept:"

type putFilesRequest struct {
	Files       map[string]string `json:"files"`
	BinaryFiles map[string]string `json:"binaryFiles"`
}

type putFilesResult struct {
	FileSet uint32 `json:"fileSet"`
}

// fileSets keeps the sets, most recently used last.
type fileSets struct {
	next  uint32
	order []uint32
	sets  map[uint32]map[string][]byte
}

func newFileSets() *fileSets {
	return &fileSets{next: 1, sets: map[uint32]map[string][]byte{}}
}

func (f *fileSets) touch(id uint32) {
	for i, o := range f.order {
		if o == id {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
	f.order = append(f.order, id)
}

func (f *fileSets) put(files map[string][]byte) uint32 {
	id := f.next
	f.next++
	f.sets[id] = files
	f.touch(id)
	for len(f.order) > maxFileSets {
		delete(f.sets, f.order[0])
		f.order = f.order[1:]
	}
	return id
}

func (f *fileSets) get(id uint32) (map[string][]byte, error) {
	files, ok := f.sets[id]
	if !ok {
		return nil, fmt.Errorf("%s %d", fileSetUnknownPrefix, id)
	}
	f.touch(id)
	return files, nil
}

// decodeFiles cleans the names of text and base64 files into one map; the same
// rules as a load's own files.
func decodeFiles(text, binary map[string]string) (map[string][]byte, error) {
	files := make(map[string][]byte, len(text)+len(binary))
	for name, content := range text {
		if err := addVirtualFile(files, name, []byte(content)); err != nil {
			return nil, err
		}
	}
	for name, encoded := range binary {
		data, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil {
			return nil, fmt.Errorf("binary file %q: invalid base64: %w", name, err)
		}
		if err := addVirtualFile(files, name, data); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func (e *Engine) putFiles(req putFilesRequest) (any, error) {
	files, err := decodeFiles(req.Files, req.BinaryFiles)
	if err != nil {
		return nil, err
	}
	return putFilesResult{FileSet: e.fileSets.put(files)}, nil
}
