// Command registry-helper prepares what the test registry needs and Node.js cannot
// produce by itself, and serves as a reference encoder for the TypeScript tar writer:
//
//	registry-helper htpasswd FILE      name:password lines on stdin -> bcrypt htpasswd FILE
//	registry-helper signing-cert KEY CERT   ECDSA P-256 key (PKCS#8 PEM) + self-signed certificate (PEM)
//	registry-helper tar                JSON tar entries on stdin -> tar stream (Go archive/tar) on stdout
//	registry-helper gcr-image          JSON image spec on stdin -> manifest, config and digest as go-containerregistry builds them
//	registry-helper gcr-push REF       the same image, pushed to REF over HTTP with go-containerregistry
//	registry-helper gcr-pull REF       REF pulled over HTTP with go-containerregistry (manifest, config, layer digests)
//	registry-helper untar DIR          a gzip layer on stdin extracted into DIR by fluxcd/pkg/tar under Timoni's limits
//	registry-helper gzip               stdin compressed to stdout by Go's compress/gzip (default level)
//
// The gcr commands authenticate with REGISTRY_USERNAME and REGISTRY_PASSWORD when set, else
// with the docker config.json in DOCKER_CONFIG (or ~/.docker):
// go-containerregistry is the client library `timoni` pushes and pulls modules with.
//
// Passwords are read from stdin so that none appears on a command line.
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  registry-helper htpasswd FILE < name:password lines
  registry-helper signing-cert KEY_FILE CERT_FILE
  registry-helper tar < entries.json > archive.tar
  registry-helper gcr-image < spec.json
  registry-helper gcr-push REF < spec.json
  registry-helper gcr-pull REF
  registry-helper untar DIR < layer.tar.gz
  registry-helper gzip < in > out.gz`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch command, args := os.Args[1], os.Args[2:]; {
	case command == "htpasswd" && len(args) == 1:
		err = writeHtpasswd(os.Stdin, args[0])
	case command == "signing-cert" && len(args) == 2:
		err = writeSigningCertificate(args[0], args[1])
	case command == "tar" && len(args) == 0:
		err = writeTar(os.Stdin, os.Stdout)
	case command == "gcr-image" && len(args) == 0:
		err = gcrImage(os.Stdin, os.Stdout)
	case command == "gcr-push" && len(args) == 1:
		err = gcrPush(os.Stdin, os.Stdout, args[0])
	case command == "gcr-pull" && len(args) == 1:
		err = gcrPull(os.Stdout, args[0])
	case command == "untar" && len(args) == 1:
		err = untarLayer(os.Stdin, os.Stdout, args[0])
	case command == "gzip" && len(args) == 0:
		err = gzipStream(os.Stdin, os.Stdout)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "registry-helper %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
