package main

import (
	"math"
	"runtime/debug"
)

// debugResetMemoryLimit undoes startMemoryWatch's soft limit for the tests that follow.
func debugResetMemoryLimit() { debug.SetMemoryLimit(math.MaxInt64) }
