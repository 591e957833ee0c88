package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The native engine's memory ceiling (cue-memory-limit). The WebAssembly engine gets
// a hard maximum on its linear memory; a native Go program has no such thing (Go's
// memory limit is soft: the collector works harder, nothing stops). So the program
// watches what its runtime holds from the operating system and stops itself past the
// limit. It checks often enough that a runaway evaluation (millions of list elements
// a second) passes the limit by little before it is stopped.

// The time between two checks: short near the limit, longer far below it (an idle
// engine should cost next to nothing; a runaway evaluation grows by at most about a
// hundred megabytes in the longer interval, from half the limit).
const (
	memoryWatchNear = 10 * time.Millisecond
	memoryWatchFar  = 50 * time.Millisecond
)

// memoryInUse reads the memory the Go runtime holds from the operating system and has
// not returned to it: about the resident size of the program.
func memoryInUse(samples []metrics.Sample) uint64 {
	metrics.Read(samples)
	var total, released uint64
	if samples[0].Value.Kind() == metrics.KindUint64 {
		total = samples[0].Value.Uint64()
	}
	if samples[1].Value.Kind() == metrics.KindUint64 {
		released = samples[1].Value.Uint64()
	}
	if released > total {
		return 0
	}
	return total - released
}

func memorySamples() []metrics.Sample {
	return []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
}

// startMemoryWatch makes the collector keep the heap under limit when it can, and
// calls exceeded (once) when the memory in use passes it anyway.
func startMemoryWatch(limit uint64, exceeded func(used uint64)) {
	debug.SetMemoryLimit(int64(limit))
	samples := memorySamples()
	go func() {
		interval := memoryWatchNear
		for {
			time.Sleep(interval)
			used := memoryInUse(samples)
			if used > limit {
				exceeded(used)
				return
			}
			interval = memoryWatchFar
			if used > limit/2 {
				interval = memoryWatchNear
			}
		}
	}()
}
