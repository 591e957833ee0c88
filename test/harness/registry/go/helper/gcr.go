package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/compression"
	"github.com/google/go-containerregistry/pkg/name"
	gcrv1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// imageSpec describes an artifact for go-containerregistry to assemble: a config media
// type, manifest annotations and gzip layer files with their annotations.
type imageSpec struct {
	ConfigMediaType string            `json:"configMediaType"`
	Annotations     map[string]string `json:"annotations"`
	Layers          []struct {
		Path        string            `json:"path"`
		MediaType   string            `json:"mediaType"`
		Annotations map[string]string `json:"annotations"`
	} `json:"layers"`
}

// gcrResult is what the gcr commands print.
type gcrResult struct {
	Digest   string `json:"digest"`
	Manifest []byte `json:"manifest"` // base64 in JSON
	Config   []byte `json:"config"`
	Layers   []struct {
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"layers"`
}

// buildImage assembles the artifact with go-containerregistry's mutate package: an empty
// OCI image, its config media type and annotations replaced, layers appended from files.
func buildImage(spec imageSpec) (gcrv1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.MediaType(spec.ConfigMediaType))
	annotated, ok := mutate.Annotations(img, spec.Annotations).(gcrv1.Image)
	if !ok {
		return nil, fmt.Errorf("annotating the image did not return an image")
	}
	img = annotated
	for _, l := range spec.Layers {
		layer, err := tarball.LayerFromFile(l.Path,
			tarball.WithMediaType(types.MediaType(l.MediaType)),
			tarball.WithCompression(compression.GZip),
			tarball.WithCompressedCaching)
		if err != nil {
			return nil, fmt.Errorf("reading layer %s: %w", l.Path, err)
		}
		img, err = mutate.Append(img, mutate.Addendum{Layer: layer, Annotations: l.Annotations})
		if err != nil {
			return nil, fmt.Errorf("appending layer %s: %w", l.Path, err)
		}
	}
	return img, nil
}

func describeImage(img gcrv1.Image) (*gcrResult, error) {
	digest, err := img.Digest()
	if err != nil {
		return nil, fmt.Errorf("computing the digest: %w", err)
	}
	manifest, err := img.RawManifest()
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	result := &gcrResult{Digest: digest.String(), Manifest: manifest, Config: config}
	layers, err := img.Layers()
	if err != nil {
		return nil, fmt.Errorf("listing the layers: %w", err)
	}
	for _, layer := range layers {
		layerDigest, err := layer.Digest()
		if err != nil {
			return nil, fmt.Errorf("layer digest: %w", err)
		}
		// Reading the whole blob makes a remote image download and verify it.
		compressed, err := layer.Compressed()
		if err != nil {
			return nil, fmt.Errorf("opening layer %s: %w", layerDigest, err)
		}
		size, err := io.Copy(io.Discard, compressed)
		if err != nil {
			return nil, fmt.Errorf("reading layer %s: %w", layerDigest, err)
		}
		if err := compressed.Close(); err != nil {
			return nil, fmt.Errorf("verifying layer %s: %w", layerDigest, err)
		}
		result.Layers = append(result.Layers, struct {
			Digest string `json:"digest"`
			Size   int64  `json:"size"`
		}{layerDigest.String(), size})
	}
	return result, nil
}

// remoteOptions uses REGISTRY_USERNAME and REGISTRY_PASSWORD when set, else the docker
// config (DOCKER_CONFIG) through gcr's default keychain; go-containerregistry then answers
// basic and bearer challenges as `timoni` does.
func remoteOptions() []remote.Option {
	options := []remote.Option{remote.WithUserAgent("timoni/v1")}
	if user := os.Getenv("REGISTRY_USERNAME"); user != "" {
		auth := authn.FromConfig(authn.AuthConfig{Username: user, Password: os.Getenv("REGISTRY_PASSWORD")})
		return append(options, remote.WithAuth(auth))
	}
	return append(options, remote.WithAuthFromKeychain(authn.DefaultKeychain))
}

func printJSON(output io.Writer, value any) error {
	return json.NewEncoder(output).Encode(value)
}

// gcrImage prints the artifact go-containerregistry assembles from the spec on stdin.
func gcrImage(input io.Reader, output io.Writer) error {
	var spec imageSpec
	if err := json.NewDecoder(input).Decode(&spec); err != nil {
		return fmt.Errorf("decoding the image spec from stdin: %w", err)
	}
	img, err := buildImage(spec)
	if err != nil {
		return err
	}
	result, err := describeImage(img)
	if err != nil {
		return err
	}
	return printJSON(output, result)
}

// gcrPush assembles the artifact from the spec on stdin and pushes it to ref over HTTP.
func gcrPush(input io.Reader, output io.Writer, reference string) error {
	var spec imageSpec
	if err := json.NewDecoder(input).Decode(&spec); err != nil {
		return fmt.Errorf("decoding the image spec from stdin: %w", err)
	}
	ref, err := name.ParseReference(reference, name.Insecure)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", reference, err)
	}
	img, err := buildImage(spec)
	if err != nil {
		return err
	}
	if err := remote.Write(ref, img, remoteOptions()...); err != nil {
		return fmt.Errorf("pushing %s: %w", reference, err)
	}
	result, err := describeImage(img)
	if err != nil {
		return err
	}
	return printJSON(output, result)
}

// gcrPull fetches ref over HTTP with go-containerregistry and prints what it got.
func gcrPull(output io.Writer, reference string) error {
	ref, err := name.ParseReference(reference, name.Insecure)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", reference, err)
	}
	img, err := remote.Image(ref, remoteOptions()...)
	if err != nil {
		return fmt.Errorf("pulling %s: %w", reference, err)
	}
	result, err := describeImage(img)
	if err != nil {
		return err
	}
	return printJSON(output, result)
}
