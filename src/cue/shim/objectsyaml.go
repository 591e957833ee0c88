package main

// Kubernetes objects printed as YAML the way Timoni v0.33.0 prints them in `timoni build`
// and `timoni bundle build`: each object decoded as Kubernetes decodes an unstructured
// object (a whole JSON number becomes an int64, any other a float64) and marshalled with
// sigs.k8s.io/yaml, the library and version Timoni links (v1.6.0, over go.yaml.in/yaml/v2
// v2.4.4; see go.mod). sigs.k8s.io/yaml encodes the value as JSON, reads that JSON back
// with go-yaml v2 (which picks int, float, bool or string for each scalar) and prints it
// with go-yaml v2: keys in go-yaml's natural order, numbers as Go formats them, strings
// quoted where a YAML 1.1 reader would take them for something else. Printing with the
// same code is what makes the text byte for byte Timoni's.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// objectsYAMLRequest carries the objects to print, each any JSON value (objects in practice).
type objectsYAMLRequest struct {
	Objects []json.RawMessage `json:"objects"`
}

// objectsYAML returns the objects as one multi-document text, "---\n" between two
// documents, as Timoni's bundle build prints the objects of one instance.
func (e *Engine) objectsYAML(req objectsYAMLRequest) (any, error) {
	documents := make([]string, 0, len(req.Objects))
	for i, raw := range req.Objects {
		object, err := decodeUnstructured(raw)
		if err != nil {
			return nil, fmt.Errorf("object %d of %d: %w", i+1, len(req.Objects), err)
		}
		text, err := yaml.Marshal(object)
		if err != nil {
			return nil, fmt.Errorf("object %d of %d%s cannot be printed as YAML: %w", i+1, len(req.Objects), objectName(object), err)
		}
		documents = append(documents, string(text))
	}
	return strings.Join(documents, "---\n"), nil
}

// decodeUnstructured decodes JSON as Kubernetes' unstructured decoding does: numbers as
// int64 when they are whole and fit, else float64 (an error past float64's range).
func decodeUnstructured(raw json.RawMessage) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	return convertNumbers(value)
}

func convertNumbers(value any) (any, error) {
	switch v := value.(type) {
	case map[string]any:
		for key, item := range v {
			converted, err := convertNumbers(item)
			if err != nil {
				return nil, err
			}
			v[key] = converted
		}
		return v, nil
	case []any:
		for i, item := range v {
			converted, err := convertNumbers(item)
			if err != nil {
				return nil, err
			}
			v[i] = converted
		}
		return v, nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, nil
		}
		f, err := v.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", v, err)
		}
		return f, nil
	default:
		return v, nil
	}
}

// objectName is " (Kind namespace/name)" for a Kubernetes object, else "".
func objectName(object any) string {
	m, ok := object.(map[string]any)
	if !ok {
		return ""
	}
	kind, _ := m["kind"].(string)
	metadata, _ := m["metadata"].(map[string]any)
	name, _ := metadata["name"].(string)
	namespace, _ := metadata["namespace"].(string)
	if kind == "" && name == "" {
		return ""
	}
	if namespace != "" {
		name = namespace + "/" + name
	}
	return fmt.Sprintf(" (%s %s)", kind, name)
}
