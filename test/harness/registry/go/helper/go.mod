module timoni-fleet/test/registry/go/helper

go 1.26.0

require (
	github.com/fluxcd/pkg/tar v1.2.0
	golang.org/x/crypto v0.58.0
)

require github.com/cyphar/filepath-securejoin v0.6.1 // indirect

require (
	github.com/docker/cli v29.6.2+incompatible // indirect
	github.com/docker/docker-credential-helpers v0.9.3 // indirect
	github.com/google/go-containerregistry v0.21.9
	github.com/klauspost/compress v1.19.1 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	github.com/sirupsen/logrus v1.9.4 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gotest.tools/v3 v3.5.2 // indirect
)
