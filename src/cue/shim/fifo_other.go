//go:build !unix && !(js && wasm)

package main

// fifoSwitch: no named pipes here; the frames stay on standard input and descriptor 3.
func fifoSwitch(string) channelSwitch { return nil }
