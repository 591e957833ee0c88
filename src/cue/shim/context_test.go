package main

import (
	"testing"
)

func TestValuesOfDifferentLoadsCombine(t *testing.T) {
	e := NewEngine()
	schema := handleOf(t, e, "load", loadRequest{Files: map[string]string{"s.cue": "package s\n#Port: int & <65536\nport: #Port\nname: string\n"}, Package: "s"})
	data := handleOf(t, e, "compile", compileRequest{Source: `{port: 8080, name: "web"}`})
	unified := handleOf(t, e, "unify", valueRequest{Handle: schema, Other: data})
	if got := exportJSON(t, e, unified); got != `{"port":8080,"name":"web"}` {
		t.Errorf("unify across loads: %s", got)
	}
	name := handleOf(t, e, "compile", compileRequest{Source: `"api"`})
	filled := handleOf(t, e, "fillValue", valueRequest{Handle: schema, Path: "name", Other: name})
	bad := handleOf(t, e, "compile", compileRequest{Source: `70000`})
	tooBig := handleOf(t, e, "fillValue", valueRequest{Handle: filled, Path: "port", Other: bad})
	ds := callFail(t, e, "toJSON", valueRequest{Handle: tooBig})
	if ds[0].Path != "port" {
		t.Errorf("the schema of one load must constrain a value of another: %+v", ds)
	}
}

// Each load gets its own CUE context, so freed loads do not pile up in memory.
func TestRepeatedLoadsDoNotAccumulate(t *testing.T) {
	e := NewEngine()
	files := moduleFiles()
	heapAfter := func(loads int) uint64 {
		return heapAfterLoads(t, e, loads, func(int) loadRequest {
			return loadRequest{Files: files, Package: "main", Tags: []string{"name=app"}, TagVars: map[string]string{"moduleVersion": "1"}}
		})
	}
	base := heapAfter(20)
	after := heapAfter(200)
	if after > base+4<<20 {
		t.Errorf("heap grew from %d to %d bytes over 200 freed loads", base, after)
	}
}
