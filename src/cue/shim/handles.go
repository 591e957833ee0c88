package main

import (
	"fmt"

	"cuelang.org/go/cue"
)

// handleTable keeps the CUE values that the TypeScript side refers to by number.
// Handles are never reused, so a stale handle fails loudly instead of silently
// pointing at another value.
type handleTable struct {
	values map[uint32]cue.Value
	next   uint32
}

func newHandleTable() *handleTable {
	return &handleTable{values: make(map[uint32]cue.Value), next: 1}
}

func (t *handleTable) add(v cue.Value) uint32 {
	id := t.next
	t.next++
	t.values[id] = v
	return id
}

func (t *handleTable) get(id uint32) (cue.Value, error) {
	v, ok := t.values[id]
	if !ok {
		return cue.Value{}, fmt.Errorf("CUE value handle %d does not exist (never created or already freed)", id)
	}
	return v, nil
}

func (t *handleTable) free(id uint32) {
	delete(t.values, id)
}

func (t *handleTable) len() int {
	return len(t.values)
}
