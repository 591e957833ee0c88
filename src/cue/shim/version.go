package main

import (
	"runtime"
	"runtime/debug"
)

type versionRequest struct{}

type versionResult struct {
	CUE string `json:"cue"`
	Go  string `json:"go"`
}

// cueModulePath is the module whose version the engine reports.
const cueModulePath = "cuelang.org/go"

func (e *Engine) version(versionRequest) (any, error) {
	result := versionResult{CUE: "unknown", Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == cueModulePath {
				result.CUE = dep.Version
				if dep.Replace != nil {
					result.CUE = dep.Replace.Version
				}
			}
		}
	}
	return result, nil
}
